/** Pure edits of a Windows CNI config read back from a node (v2 `Settings` or v1 policies). */
import { hnsApiVersion, jsonField, policyBodies } from '../cni/windows-cni-config.ts';
import { FaultError } from './fault-error.ts';
import type { CniEdit } from './fault-definition.ts';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every OutBoundNAT policy body in the config, wherever the plugin keeps its policies. */
function outboundNatPolicies(config: Json): Json[] {
  return policyBodies(config).filter(
    (p) => String(jsonField(p, 'Type')).toLowerCase() === 'outboundnat',
  );
}

/** The object and key of a policy's exception list in the API the config asks for. */
function exceptionList(config: Json, policy: Json): [Json, string] | undefined {
  if (hnsApiVersion(config) === 1) return [policy, 'ExceptionList'];
  const settings = jsonField(policy, 'Settings');
  return isObject(settings) ? [settings, 'Exceptions'] : undefined;
}

function dropException(config: Json, cidr: string, node: string): void {
  let dropped = false;
  for (const policy of outboundNatPolicies(config)) {
    const [holder, key] = exceptionList(config, policy) ?? [{}, ''];
    const list = holder[key];
    if (!Array.isArray(list) || !list.includes(cidr)) continue;
    holder[key] = list.filter((e) => e !== cidr);
    dropped = true;
  }
  if (!dropped) {
    throw new FaultError(`node ${node}: the OutBoundNAT ExceptionList has no ${cidr} to drop`, {
      hint: 'the CNI config was changed already; `lab heal` restores it',
    });
  }
}

function dropDnsSearch(config: Json): void {
  if (isObject(config.capabilities)) config.capabilities.dns = false;
  for (const holder of [config, config.delegate]) {
    if (isObject(holder) && isObject(holder.dns)) holder.dns.Search = [];
  }
}

/** A copy of `config` with the edit made; the input is left alone. */
export function editWindowsCni(config: unknown, edit: CniEdit, node: string): unknown {
  if (!isObject(config))
    throw new FaultError(`node ${node}: its Windows CNI config is not an object`);
  const copy = structuredClone(config);
  switch (edit.kind) {
    case 'drop-exception':
      dropException(copy, edit.cidr, node);
      break;
    case 'drop-dns-search':
      dropDnsSearch(copy);
      break;
  }
  return copy;
}
