/** The CNI-config edit behind the injected fault: one CIDR leaves the OutBoundNAT ExceptionList. */
import { LabError } from '../../lab/errors.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A copy of a (v1, `delegate.policies`) Windows CNI config without `cidr` among the OutBoundNAT exceptions. */
export function withoutException(config: unknown, cidr: string): unknown {
  const copy = structuredClone(config);
  const delegate = isObject(copy) && isObject(copy.delegate) ? copy.delegate : undefined;
  const policies = Array.isArray(delegate?.policies) ? (delegate.policies as unknown[]) : [];
  const nat = policies
    .map((p) => (isObject(p) && isObject(p.Value) ? p.Value : undefined))
    .find((v) => v !== undefined && String(v.Type).toLowerCase() === 'outboundnat');
  if (nat === undefined || !Array.isArray(nat.ExceptionList)) {
    throw new LabError(
      'the CNI config has no OutBoundNAT policy with an ExceptionList (delegate.policies)',
    );
  }
  if (!nat.ExceptionList.includes(cidr)) {
    throw new LabError(
      `${cidr} is not in the OutBoundNAT ExceptionList (${nat.ExceptionList.join(', ')})`,
    );
  }
  nat.ExceptionList = nat.ExceptionList.filter((c) => c !== cidr);
  return copy;
}
