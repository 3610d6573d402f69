/** How long a disrupted node's cells may take to be green again: the profile's bound, else the default. */
import type { Os } from '../../../lab/contracts/cells.ts';
import type { DisruptionAction } from '../../../lab/contracts/disruptions.ts';
import type { Profile } from '../profile.ts';

/** The bound where the profile names none: the default. */
export const DEFAULT_RECOVERY_BOUND_MS = 60_000;

export interface RecoveryBound {
  boundMs: number;
  /** Where it comes from, for the results: the profile entry's reason and link, or the default. */
  from: string;
}

/** The bound of `action` on a node of `os` under `profile`; the first matching entry wins. */
export function recoveryBound(profile: Profile, action: DisruptionAction, os: Os): RecoveryBound {
  const entry = profile.recovery?.find((r) => r.action === action && r.os === os);
  if (entry === undefined) {
    return {
      boundMs: DEFAULT_RECOVERY_BOUND_MS,
      from: `default (${DEFAULT_RECOVERY_BOUND_MS / 1000} s; profile ${profile.name} names no bound for ${action} on ${os})`,
    };
  }
  const link = entry.link === undefined ? '' : ` (${entry.link})`;
  return { boundMs: entry.boundMs, from: `profile ${profile.name}: ${entry.reason}${link}` };
}
