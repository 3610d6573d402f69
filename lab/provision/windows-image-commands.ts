/**
 * What the Windows images the suite runs are known to carry, each program with the upstream file
 * that puts it there (or runs it there), and what they are not known to carry. A HostProcess
 * container runs on the host and finds its image's files under `$env:CONTAINER_SANDBOX_MOUNT_POINT`
 * (Kubernetes' HostProcess documentation), so a call from one must go through that folder.
 */

const K8S = 'https://github.com/kubernetes/kubernetes/blob/master';
const AGNHOST_DOCKERFILE = `${K8S}/test/images/agnhost/Dockerfile_windows`;
const AGNHOST_BASEIMAGE = `${K8S}/test/images/agnhost/BASEIMAGE`;
const BUSYBOX_DOCKERFILE = `${K8S}/test/images/busybox/Dockerfile_windows`;

/**
 * The PowerShell the Windows agnhost image carries: its busybox base copies it from
 * `e2eteam/powershell-helper:6.2.7`. Syntax newer than 6.2 (`??`, `?.`, `&&`/`||` chains, the
 * ternary operator, `ForEach-Object -Parallel`: PowerShell 7) does not parse there.
 */
export const AGNHOST_WINDOWS_POWERSHELL = '6.2.7';

/** A program of an image, as the suite's commands name it. */
export interface ImageProgram {
  /** `curl.exe` (found on the image's PATH), or `/agnhost` (a path in the image). */
  name: string;
  /** Where the image has it. */
  path: string;
  /** The upstream files that put it there, or that run it there. */
  sources: readonly string[];
}

export interface WindowsImage {
  /** Which image: what the suite calls it. */
  image: string;
  programs: readonly ImageProgram[];
  /** Programs nothing shows the image carries: the suite must not rely on them. */
  unknown: readonly { name: string; why: string }[];
}

/**
 * The Windows variant of agnhost (registry.k8s.io/e2e-test-images/agnhost): built FROM the e2e
 * busybox image (agnhost's BASEIMAGE), which adds curl, BIND's dig and PowerShell 6.2.7 (copied
 * from its `e2eteam/powershell-helper:6.2.7` stage).
 */
export const AGNHOST_WINDOWS: WindowsImage = {
  image: "the suite's agnhost image for Windows",
  programs: [
    {
      // No extension: CreateProcess runs it by full path; hcsshim resolves it as an entrypoint.
      name: '/agnhost',
      path: 'C:\\agnhost',
      sources: [
        AGNHOST_DOCKERFILE,
        'https://github.com/microsoft/hcsshim/blob/main/internal/jobcontainers/jobcontainer.go',
      ],
    },
    {
      name: 'curl.exe',
      path: 'on PATH (the busybox layer adds C:\\curl to it)',
      sources: [BUSYBOX_DOCKERFILE, `${K8S}/test/e2e/windows/hybrid_network.go`],
    },
    { name: 'dig.exe', path: 'C:\\dig\\dig.exe (on PATH)', sources: [BUSYBOX_DOCKERFILE] },
    {
      name: 'pwsh.exe',
      path: `C:\\Program Files\\PowerShell\\pwsh.exe (PowerShell ${AGNHOST_WINDOWS_POWERSHELL}, on PATH)`,
      sources: [BUSYBOX_DOCKERFILE, AGNHOST_DOCKERFILE],
    },
  ],
  unknown: [
    {
      name: 'ping.exe',
      why: `neither ${AGNHOST_DOCKERFILE} nor ${BUSYBOX_DOCKERFILE} adds it, and no file lists what the base image (${AGNHOST_BASEIMAGE}) carries`,
    },
    {
      // The perf mode's streams need it: perf-in-pod.ts skips them on Windows.
      name: 'iperf3.exe',
      why: `neither ${AGNHOST_DOCKERFILE} nor ${BUSYBOX_DOCKERFILE} adds it, and no file lists what the base image (${AGNHOST_BASEIMAGE}) carries`,
    },
  ],
};

/** A program an image brings that a HostProcess start script may run (from its sandbox folder). */
export interface ImageCommand {
  /** File name: `agnhost`. */
  name: string;
  /** The image it comes from. */
  image: string;
  /** Where HostProcess containers' view of their image files is documented. */
  doc: string;
}

/** The command checker's view: the agnhost image's own program, called from the sandbox folder. */
export const WINDOWS_IMAGE_COMMANDS: readonly ImageCommand[] = [
  {
    name: 'agnhost',
    image: AGNHOST_WINDOWS.image,
    doc: 'https://kubernetes.io/docs/tasks/configure-pod-container/create-hostprocess-pod/',
  },
];
