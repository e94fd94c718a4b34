import type { IDataObject } from 'n8n-workflow';

import { toPips, type UsdAmount } from './amounts';

function numberOrUndefined(value: unknown): number | undefined {
	return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * The one reading of an entry of GET /account/limits (`{ limit, used, remaining }`): its ceiling and
 * what is left (`remaining`, else `limit - used`); undefined when the answer lacks it (daily limits
 * were seen missing). Create's pre-flight, Check Batch and the errors' explanations all read it here.
 */
export function limitEntry(limits: IDataObject, name: string): { ceiling?: number; remaining?: number } | undefined {
	const entry = limits[name];
	if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return undefined;
	const e = entry as IDataObject;
	const ceiling = numberOrUndefined(e.limit);
	const used = numberOrUndefined(e.used) ?? 0;
	const remaining = numberOrUndefined(e.remaining) ?? (ceiling !== undefined ? ceiling - used : undefined);
	if (ceiling === undefined && remaining === undefined) return undefined;
	return { ceiling, remaining };
}

/** What is left of one limit; undefined when the answer lacks it. */
function remaining(limits: IDataObject, name: string): number | undefined {
	return limitEntry(limits, name)?.remaining;
}

/**
 * The limits of a GET /account/limits answer that an order of `amount` would breach, in words;
 * empty when it fits. Only the limits present are checked.
 */
export function limitBreaches(limits: IDataObject, amount: UsdAmount): string[] {
	const problems: string[] = [];
	for (const [name, label] of [
		['maxTxUsd', 'the per-transaction maximum'],
		['maxValuePerEpochUsd', 'the value left in this netting window'],
		['maxValuePerDayUsd', 'the value left today'],
	]) {
		const left = remaining(limits, name);
		if (left !== undefined && amount.pips > toPips(left)) {
			problems.push(`${amount.text} USD exceeds ${label} (${name} remaining ${left} USD)`);
		}
	}
	for (const [name, label] of [
		['maxCountPerEpoch', 'orders left in this netting window'],
		['maxCountPerDay', 'orders left today'],
	]) {
		const left = remaining(limits, name);
		if (left !== undefined && left < 1) problems.push(`no ${label} (${name} remaining ${left})`);
	}
	return problems;
}
