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

/** What an entry of GET /account/limits holds: its ceiling and what is left of it. */
export interface LimitEntry {
	ceiling?: number;
	remaining?: number;
}

/** A limit present that the node cannot read exactly: every check against it fails closed, naming it. */
export interface Unreadable {
	unreadable: LimitReadError;
}

/**
 * The one reading of an entry of GET /account/limits: its ceiling and what is left (`remaining`, else
 * `limit - used`), exact; undefined when the entry is missing (daily limits were seen missing). A value
 * that is not a decimal of at most 4 places is `{ unreadable }`: a guard never guesses.
 */
export function limitEntry(limits: IDataObject, name: string): LimitEntry | Unreadable | undefined {
	const entry = limits[name];
	if (entry === undefined || entry === null) return undefined;
	const unreadable = (what: string): Unreadable => ({
		unreadable: new LimitReadError(
			name,
			`The account limit ${name} could not be read exactly (${what}): the node checks nothing against a limit it cannot read`,
		),
	});
	if (typeof entry !== 'object' || Array.isArray(entry)) return unreadable(`got ${JSON.stringify(entry)}, not an object`);
	const e = entry as IDataObject;
	const pips: Partial<Record<'limit' | 'used' | 'remaining', bigint>> = {};
	for (const field of ['limit', 'used', 'remaining'] as const) {
		if (e[field] === undefined || e[field] === null) continue;
		pips[field] = exactPips(e[field]);
		if (pips[field] === undefined) return unreadable(`its ${field} is ${JSON.stringify(e[field])}, not a number of at most 4 decimal places`);
	}
	const ceiling = pips.limit;
	const remaining = pips.remaining ?? (ceiling !== undefined ? ceiling - (pips.used ?? 0n) : undefined);
	if (ceiling === undefined && remaining === undefined) return unreadable('it has neither a limit nor a remaining value');
	return {
		ceiling: ceiling === undefined ? undefined : pipsValue(ceiling),
		remaining: remaining === undefined ? undefined : pipsValue(remaining),
	};
}

/** The limits of GET /account/limits (the spec's names) in the order the node reports them, with their words. */
export const ACCOUNT_LIMITS = [
	{ name: 'maxTxUsd', kind: 'largest', period: 'per order', what: 'largest order allowed in USD' },
	{ name: 'maxCountPerEpoch', kind: 'count', period: 'in this netting window', what: 'orders per netting window' },
	{ name: 'maxValuePerEpochUsd', kind: 'value', period: 'in this netting window', what: 'USD per netting window' },
	{ name: 'maxCountPerDay', kind: 'count', period: 'today', what: 'orders per day' },
	{ name: 'maxValuePerDayUsd', kind: 'value', period: 'today', what: 'USD per day' },
] as const;

/** A limit in words with its API name (`orders per day (maxCountPerDay)`); undefined for a name the spec does not list. */
export function limitWords(name: string): string | undefined {
	const limit = ACCOUNT_LIMITS.find((l) => l.name === name);
	return limit && `${limit.what} (${name})`;
}

/** The limits counted in USD (the per-order maximum and the value limits). */
const USD_LIMITS = ACCOUNT_LIMITS.filter((limit) => limit.kind !== 'count');

/** What is held against the limits: one order, or a whole run (the per-order maximum is not a fact of a total). */
export type LimitsAsked = { order: UsdAmount } | { run: UsdAmount; orders: number };

/** The limits present that `asked` would breach, in words (value limits first), or `{ unreadable }` for one not read exactly. */
export function limitBreaches(limits: IDataObject, asked: LimitsAsked): { breaches: string[] } | Unreadable {
	const amount = 'order' in asked ? asked.order : asked.run;
	const breaches: string[] = [];
	for (const { name, kind, period } of [...USD_LIMITS, ...ACCOUNT_LIMITS.filter((limit) => limit.kind === 'count')]) {
		if (kind === 'largest' && 'run' in asked) continue;
		const entry = limitEntry(limits, name);
		if (entry && 'unreadable' in entry) return entry;
		const left = entry?.remaining;
		if (left === undefined) continue;
		if (kind === 'count') {
			if ('order' in asked && left < 1) breaches.push(`no orders left ${period} (${name} remaining ${left})`);
			if ('run' in asked && asked.orders > left) breaches.push(`${asked.orders} orders but only ${left} left ${period} (${name} remaining ${left})`);
		} else if (amount.pips > toPips(left)) {
			const label = kind === 'largest' ? 'the per-transaction maximum' : `the value left ${period}`;
			breaches.push(`${amount.text} USD exceeds ${label} (${name} remaining ${left} USD)`);
		}
	}
	return { breaches };
}

/** What remains of the USD limits, in words (the API's names in brackets): `400 USD per order (maxTxUsd), …`. */
export function remainingText(limits: IDataObject): string {
	const parts: string[] = [];
	for (const { name, period } of USD_LIMITS) {
		const entry = limitEntry(limits, name);
		if (entry && !('unreadable' in entry) && entry.remaining !== undefined) parts.push(`${entry.remaining} USD ${period} (${name})`);
	}
	return parts.join(', ');
}
