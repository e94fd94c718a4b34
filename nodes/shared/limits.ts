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
		new LimitReadError(name, `The account limit ${name} could not be read exactly (${what}): the node checks nothing against a limit it cannot read`);
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

/**
 * The limits of GET /account/limits (the spec's names), in the order the node reports them: what each
 * holds (`largest`: one order; `count`: orders; `value`: USD), the period it counts in, and what it
 * limits in words (Check Batch's `what`).
 */
export const ACCOUNT_LIMITS = [
	{ name: 'maxTxUsd', kind: 'largest', period: 'per order', what: 'largest order allowed (USD)' },
	{ name: 'maxCountPerEpoch', kind: 'count', period: 'in this netting window', what: 'orders per netting window' },
	{ name: 'maxValuePerEpochUsd', kind: 'value', period: 'in this netting window', what: 'USD per netting window' },
	{ name: 'maxCountPerDay', kind: 'count', period: 'today', what: 'orders per day' },
	{ name: 'maxValuePerDayUsd', kind: 'value', period: 'today', what: 'USD per day' },
] as const;

/** The limits counted in USD (the per-order maximum and the value limits). */
const USD_LIMITS = ACCOUNT_LIMITS.filter((limit) => limit.kind !== 'count');

/**
 * The limits of a GET /account/limits answer that an order of `amount` would breach, in words (value
 * limits before count limits); empty when it fits. Only the limits present are checked.
 */
export function limitBreaches(limits: IDataObject, amount: UsdAmount): string[] {
	const problems: string[] = [];
	for (const { name, kind, period } of USD_LIMITS) {
		const left = limitEntry(limits, name)?.remaining;
		if (left !== undefined && amount.pips > toPips(left)) {
			const label = kind === 'largest' ? 'the per-transaction maximum' : `the value left ${period}`;
			problems.push(`${amount.text} USD exceeds ${label} (${name} remaining ${left} USD)`);
		}
	}
	for (const { name, kind, period } of ACCOUNT_LIMITS) {
		if (kind !== 'count') continue;
		const left = limitEntry(limits, name)?.remaining;
		if (left !== undefined && left < 1) problems.push(`no orders left ${period} (${name} remaining ${left})`);
	}
	return problems;
}

/** What remains of the USD limits, in words (the API's names in brackets): `400 USD per order (maxTxUsd), …`. */
export function remainingText(limits: IDataObject): string {
	const parts: string[] = [];
	for (const { name, period } of USD_LIMITS) {
		const left = limitEntry(limits, name)?.remaining;
		if (left !== undefined) parts.push(`${left} USD ${period} (${name})`);
	}
	return parts.join(', ');
}
