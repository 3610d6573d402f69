/**
 * What a cluster the harness did not make intends, where the API server does not say it: Windows
 * DSR and whether pods are NATed on their way out. Unset, a fact stays unknown and the cells that
 * depend on it accept either way (specs/engine/profile.ts); the project's own labs say it in their
 * plan.
 */
import { SettingError } from '../../model/settings.ts';

export const OUTBOUND_NAT_MODES = ['node', 'preserve', 'report'] as const;
/**
 * What the outbound-NAT echo must see of a pod: its node's address (`node`), the pod's own
 * (`preserve`), or whatever it saw, recorded per cell (`report`).
 */
export type OutboundNatMode = (typeof OUTBOUND_NAT_MODES)[number];

export interface ClusterIntent {
  /** WINDOWS_DSR=on|off: whether Windows kube-proxy runs with direct server return. */
  windowsDsr?: boolean;
  /** OUTBOUND_NAT; unset: `report` on clusters the harness did not make, `node` on its labs. */
  outboundNat?: OutboundNatMode;
}

/** A value of `allowed` from the environment, '' as unset; anything else names the setting. */
function oneOf<T extends string>(
  env: NodeJS.ProcessEnv,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new SettingError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`, {
      hint: `unset ${name} to leave it unknown`,
    });
  return value as T;
}

/** WINDOWS_DSR and OUTBOUND_NAT; throws SettingError naming the setting and what it allows. */
export function clusterIntent(env: NodeJS.ProcessEnv): ClusterIntent {
  const dsr = oneOf(env, 'WINDOWS_DSR', ['on', 'off']);
  const nat = oneOf(env, 'OUTBOUND_NAT', OUTBOUND_NAT_MODES);
  return {
    ...(dsr === undefined ? {} : { windowsDsr: dsr === 'on' }),
    ...(nat === undefined ? {} : { outboundNat: nat }),
  };
}

/** The outbound-NAT mode of a run: the setting, else `report` where the harness did not make the cluster. */
export function outboundNatOf(
  intent: ClusterIntent,
  provider: string,
): OutboundNatMode | undefined {
  return intent.outboundNat ?? (provider === 'existing' ? 'report' : undefined);
}
