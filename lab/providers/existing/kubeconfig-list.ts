/** KUBECONFIG as kubectl reads it: a list of files, separated as PATH is. */
import { delimiter } from 'node:path';

/** The files of a kubeconfig path list, in order. */
export function kubeconfigFiles(paths: string): string[] {
  return paths.split(delimiter).filter((f) => f !== '');
}
