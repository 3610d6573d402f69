/** Files of this repository the libvirt provider runs: the Vagrantfile, virsh wrappers, box recipes. */
import { fileURLToPath } from 'node:url';

const VAGRANT_DIR = new URL('../../../vagrant/', import.meta.url);

/** vagrant/Vagrantfile: reads the plan and one hypervisor's project file. */
export const VAGRANTFILE = fileURLToPath(new URL('Vagrantfile', VAGRANT_DIR));

/** A script of vagrant/bin (run with bash). */
export function binScript(
  name:
    | 'hl-lab-resources.sh'
    | 'hl-destroy-orphans.sh'
    | 'hl-dump-xml.sh'
    | 'hl-console-log.sh'
    | 'hl-snapshot.sh',
): string {
  return fileURLToPath(new URL(`bin/${name}`, VAGRANT_DIR));
}

/** The recipe that builds a box, by box catalogue key (only the Debian one builds here). */
export const BOX_RECIPES: Readonly<Record<string, string>> = {
  'debian-12': fileURLToPath(new URL('boxes/debian/build.sh', VAGRANT_DIR)),
  'windows-2022': fileURLToPath(new URL('boxes/windows/', VAGRANT_DIR)),
  'windows-2019': fileURLToPath(new URL('boxes/windows/', VAGRANT_DIR)),
};
