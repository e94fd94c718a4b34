import type { IDataObject } from 'n8n-workflow';

import { exactPips, pipsValue, toPips, type UsdAmount } from './amounts';

/** An entry of GET /account/limits holding a value the node cannot read exactly: nothing is checked against it. */
export class LimitReadError extends Error {
	constructor(
		readonly limit: string,
		message: string,
	) {
		super(message);
		this.name = 'LimitReadError';
	}
}

/**
 * The one reading of an entry of GET /account/limits (`{ limit, used, remaining }`): its ceiling and
 * what is left (`remaining`, else `limit - used`), exact (in pips, never through float arithmetic);
 * undefined when the answer lacks the entry (daily limits were seen missing). A value present that is
 * not a decimal of at most 4 places throws LimitReadError naming the limit: a guard never guesses.
 * Create's pre-flight, its dry run, Check Batch and the errors' explanations all read it here.
 */
export function limitEntry(limits: IDataObject, name: string): { ceiling?: number; remaining?: number } | undefined {
	const entry = limits[name];
	if (entry === undefined || entry === null) return undefined;
	const unreadable = (what: string) =>
		new LimitReadError(
			name,
			`The account limit ${name} could not be read exactly (${what}): the node checks nothing against a limit it cannot read`,
		);
	if (typeof entry !== 'object' || Array.isArray(entry)) throw unreadable(`got ${JSON.stringify(entry)}, not an object`);
	const e = entry as IDataObject;
	const read = (field: 'limit' | 'used' | 'remaining'): bigint | undefined => {
		if (e[field] === undefined || e[field] === null) return undefined;
		const pips = exactPips(e[field]);
		if (pips === undefined) throw unreadable(`its ${field} is ${JSON.stringify(e[field])}, not a number of at most 4 decimal places`);
		return pips;
	};
	const ceiling = read('limit');
	const used = read('used') ?? 0n;
	const remaining = read('remaining') ?? (ceiling !== undefined ? ceiling - used : undefined);
	if (ceiling === undefined && remaining === undefined) throw unreadable('it has neither a limit nor a remaining value');
	return {
		ceiling: ceiling === undefined ? undefined : pipsValue(ceiling),
		remaining: remaining === undefined ? undefined : pipsValue(remaining),
	};
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
