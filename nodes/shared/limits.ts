import type { IDataObject } from 'n8n-workflow';

import { toPips, type UsdAmount } from './amounts';

/** One entry of GET /account/limits. */
interface Limit {
	limit?: number;
	used?: number;
	remaining?: number;
}

/** What is left of one limit; undefined when the answer lacks it (daily limits were seen missing). */
function remaining(limits: IDataObject, name: string): number | undefined {
	const entry = limits[name] as Limit | undefined;
	if (!entry || typeof entry !== 'object') return undefined;
	if (typeof entry.remaining === 'number') return entry.remaining;
	if (typeof entry.limit === 'number') return entry.limit - (typeof entry.used === 'number' ? entry.used : 0);
	return undefined;
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
