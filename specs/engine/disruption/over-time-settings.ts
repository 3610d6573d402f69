/**
 * The settings of the over-time part of a run (docs/disruption.md): the long-lived, stateful UDP and
 * twin-service rows, and the disruption phase after them. Off unless a setting or a --grep that
 * names one of them turns it on; checked before anything runs.
 */
import {
  DISRUPTION_ACTIONS,
  type DisruptionAction,
  type DisruptionNodes,
} from '../../../lab/contracts/disruptions.ts';
import { positiveIntSetting, SettingError } from '../../model/settings.ts';
import type { Selection } from '../selection.ts';

/** Words in a --grep that turn the over-time rows on (each is in their titles). */
export const OVER_TIME_WORDS = ['disruption', 'long-lived', 'udp-conntrack', 'twin-services'];

/** The least time a long-lived connection stays idle before it must answer again. */
export const DEFAULT_LONG_LIVED_IDLE_MS = 30_000;

export interface OverTimeSettings {
  /** The long-lived, stateful UDP and twin-service rows run (OVER_TIME, DISRUPTIONS or --grep). */
  enabled: boolean;
  /** The disruption phase's actions (DISRUPTIONS); empty: no phase. */
  actions: DisruptionAction[];
  /** The actions were named one by one (clusters the harness did not make need that). */
  named: boolean;
  /** DISRUPTION_NODES: which nodes the phase acts on. */
  nodes: DisruptionNodes;
  /** LONG_LIVED_IDLE_MS: the least idle time of a long-lived connection before its check. */
  idleMs: number;
}

const NODE_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

function disruptions(
  text: string | undefined,
  grep: string | undefined,
): { actions: DisruptionAction[]; named: boolean } {
  const value = text?.trim() ?? '';
  if (value === 'off') return { actions: [], named: false };
  if (value === '') {
    const asked = grep !== undefined && /disruption/.test(grep);
    return { actions: asked ? [...DISRUPTION_ACTIONS] : [], named: false };
  }
  if (value === 'on') return { actions: [...DISRUPTION_ACTIONS], named: false };
  const listed = value.split(',').map((a) => a.trim());
  const unknown = listed.filter((a) => !(DISRUPTION_ACTIONS as readonly string[]).includes(a));
  if (unknown.length > 0 || listed.length === 0) {
    throw new SettingError(
      `DISRUPTIONS must be off, on, or a comma list of ${DISRUPTION_ACTIONS.join(', ')}; got '${value}'`,
    );
  }
  return {
    actions: DISRUPTION_ACTIONS.filter((a) => listed.includes(a)),
    named: true,
  };
}

function disruptionNodes(text: string | undefined): DisruptionNodes {
  const value = text?.trim() ?? '';
  if (value === '' || value === 'ends') return 'ends';
  if (value === 'all') return 'all';
  const names = value.split(',').map((n) => n.trim());
  const bad = names.filter((n) => !NODE_NAME.test(n));
  if (bad.length > 0) {
    throw new SettingError(
      `DISRUPTION_NODES must be ends, all, or a comma list of node names; got '${value}'`,
    );
  }
  return names;
}

/** The over-time settings of a run; throws SettingError naming the setting and what it allows. */
export function overTimeSettings(env: NodeJS.ProcessEnv, selection: Selection): OverTimeSettings {
  const { actions, named } = disruptions(env.DISRUPTIONS, selection.pattern);
  const overTime = env.OVER_TIME?.trim() ?? '';
  if (!['', 'on', 'off'].includes(overTime))
    throw new SettingError(`OVER_TIME must be on or off; got '${overTime}'`);
  const grep = selection.pattern;
  const asked = grep !== undefined && OVER_TIME_WORDS.some((word) => grep.includes(word));
  return {
    enabled: overTime === 'on' || actions.length > 0 || (overTime !== 'off' && asked),
    actions,
    named,
    nodes: disruptionNodes(env.DISRUPTION_NODES),
    idleMs: positiveIntSetting(env, 'LONG_LIVED_IDLE_MS', DEFAULT_LONG_LIVED_IDLE_MS),
  };
}

/** The phase's nodes checked against the lab's: a name the lab lacks is an error naming it. */
export function checkDisruptionNodes(
  nodes: DisruptionNodes,
  lab: readonly { name: string }[],
): void {
  if (nodes === 'ends' || nodes === 'all') return;
  const missing = nodes.filter((n) => !lab.some((node) => node.name === n));
  if (missing.length > 0) {
    throw new SettingError(
      `DISRUPTION_NODES names ${missing.join(', ')}, which the lab does not have (nodes: ${lab.map((n) => n.name).join(', ')})`,
    );
  }
}
