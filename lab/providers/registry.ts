/** Providers by name; the spec chooses one explicitly. */
import { LabSpecError } from '../errors.ts';
import type { ProviderName } from '../plan/lab-plan.ts';
import { ExistingProvider } from './existing/existing-provider.ts';
import { LibvirtProvider } from './libvirt/libvirt-provider.ts';
import { NetnsProvider } from './netns/netns-provider.ts';
import type { LabProvider, ProviderContext, ProviderFactory } from './lab-provider.ts';

const FACTORIES: Partial<Record<ProviderName, ProviderFactory>> = {
  netns: (context) => new NetnsProvider(context),
  libvirt: (context) => new LibvirtProvider(context),
  existing: (context) => new ExistingProvider(context),
};

export function registeredProviders(): ProviderName[] {
  return Object.keys(FACTORIES) as ProviderName[];
}

export function createProvider(name: ProviderName, context: ProviderContext): LabProvider {
  const factory = FACTORIES[name];
  if (factory === undefined) {
    throw new LabSpecError('provider', [
      {
        path: 'provider',
        message: `"${name}" is not available in this build (available: ${registeredProviders().join(', ')})`,
      },
    ]);
  }
  return factory(context);
}
