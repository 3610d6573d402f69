/**
 * Programs a container image brings that a Windows HostProcess container runs: such a container
 * runs on the host, and finds its image's files under `$env:CONTAINER_SANDBOX_MOUNT_POINT`
 * (Kubernetes' HostProcess documentation), so a call must go through that folder.
 */

export interface ImageCommand {
  /** File name: `agnhost.exe`. */
  name: string;
  /** The image it comes from. */
  image: string;
  /** Where HostProcess containers' view of their image files is documented. */
  doc: string;
}

export const WINDOWS_IMAGE_COMMANDS: readonly ImageCommand[] = [
  {
    name: 'agnhost.exe',
    image: "the suite's agnhost image (AGNHOST_IMAGE)",
    doc: 'https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/',
  },
];
