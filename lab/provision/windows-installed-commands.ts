/**
 * The programs the project's own Windows node scripts install that scripts and HostProcess start
 * scripts then run, with where each lands and which script puts it there. Only programs some
 * script runs are listed (a unit test keeps it so, and checks the installer names the folder).
 */

export interface InstalledCommand {
  /** File name: `kube-proxy.exe`. */
  name: string;
  /** Where it is installed; a call by full path must use one of these. */
  paths: string[];
  /** The repository path of the script that installs it. */
  installedBy: string;
  /** What the installer unpacks or copies it from. */
  from: string;
}

const installContainerd = 'vagrant/scripts/windows/install-containerd.ps1';
const installKubernetes = 'vagrant/scripts/windows/install-kubernetes.ps1';

export const WINDOWS_INSTALLED_COMMANDS: readonly InstalledCommand[] = [
  {
    name: 'containerd.exe',
    paths: ['C:\\Program Files\\containerd\\containerd.exe'],
    installedBy: installContainerd,
    from: 'the containerd release archive (HL_ARTIFACT_CONTAINERD)',
  },
  {
    name: 'ctr.exe',
    paths: ['C:\\Program Files\\containerd\\ctr.exe'],
    installedBy: installContainerd,
    from: 'the containerd release archive (HL_ARTIFACT_CONTAINERD)',
  },
  {
    name: 'host-local.exe',
    paths: ['C:\\opt\\cni\\bin\\host-local.exe'],
    installedBy: installContainerd,
    from: 'the Windows CNI plugins release archive (HL_ARTIFACT_CNI_PLUGINS)',
  },
  {
    name: 'kubelet.exe',
    paths: ['C:\\k\\kubelet.exe'],
    installedBy: installKubernetes,
    from: 'HL_ARTIFACT_KUBELET',
  },
  {
    name: 'kubeadm.exe',
    paths: ['C:\\k\\kubeadm.exe'],
    installedBy: installKubernetes,
    from: 'HL_ARTIFACT_KUBEADM',
  },
  {
    name: 'kube-proxy.exe',
    paths: ['C:\\k\\kube-proxy\\kube-proxy.exe'],
    installedBy: installKubernetes,
    from: 'HL_ARTIFACT_KUBE_PROXY',
  },
  {
    name: 'flanneld.exe',
    paths: ['C:\\k\\flannel\\flanneld.exe'],
    installedBy: installKubernetes,
    from: 'HL_ARTIFACT_FLANNELD',
  },
  {
    name: 'nssm.exe',
    paths: ['C:\\k\\nssm.exe'],
    installedBy: installKubernetes,
    from: 'HL_ARTIFACT_NSSM',
  },
];
