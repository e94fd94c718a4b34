import type { IDataObject } from 'n8n-workflow';

import { fromPips, toPips, type UsdAmount } from '../../../shared/amounts';
import { ACCOUNT_LIMITS, limitEntry } from '../../../shared/limits';

/** One limit of GET /account/limits against the batch. */
export interface LimitCheck {
	limit: string;
	what: string;
	/** What the batch needs of it: the largest order (maxTxUsd), else the batch's count or total. */
	batch: number;
	ceiling?: number;
	/** What is left of the ceiling now. */
	remaining?: number;
	ok: boolean;
	/** How far the batch goes over, 0 when it fits. */
	over: number;
}

export interface BatchReport extends IDataObject {
	ok: boolean;
	summary: string;
	orders: number;
	totalUsd: number;
	largestUsd: number;
	/** Counted from 1. */
	largestItem: number;
	problems: string[];
	checks: IDataObject[];
	/** Limits the account's answer did not include: not checked (daily limits can be absent). */
	notChecked: string[];
	note: string;
}

/** The batch against the account's limits: the largest order, the count and the sum, each counted as if paid now. Exact. */
export function checkBatch(amounts: UsdAmount[], limits: IDataObject): BatchReport {
	const total = amounts.reduce((sum, a) => sum + a.pips, 0n);
	let largestIndex = -1;
	amounts.forEach((a, n) => {
		if (largestIndex < 0 || a.pips > amounts[largestIndex].pips) largestIndex = n;
	});
	const largest = largestIndex < 0 ? 0n : amounts[largestIndex].pips;
	const usd = (pips: bigint) => fromPips(pips).value;
	const checks: LimitCheck[] = [];
	const notChecked: string[] = [];
	const problems: string[] = [];
	for (const { name: limit, what, kind } of ACCOUNT_LIMITS) {
		const entry = limitEntry(limits, limit);
		if (!entry) {
			notChecked.push(limit);
			continue;
		}
		// A report on limits the node cannot read exactly would guess: the operation fails, naming the limit.
		if ('unreadable' in entry) throw entry.unreadable;
		if (kind === 'largest') {
			const ceiling = entry.ceiling ?? entry.remaining!;
			const overPips = largest - toPips(ceiling);
			const ok = overPips <= 0n;
			checks.push({ limit, what, batch: usd(largest), ceiling, remaining: entry.remaining, ok, over: ok ? 0 : usd(overPips) });
			if (!ok) {
				const count = amounts.filter((a) => a.pips > toPips(ceiling)).length;
				problems.push(
					`${count === 1 ? 'One order is' : `${count} orders are`} above the largest order allowed: item ${largestIndex + 1} asks ${usd(largest)} USD, the limit is ${ceiling} USD (maxTxUsd)`,
				);
			}
			continue;
		}
		const left = entry.remaining ?? entry.ceiling!;
		if (kind === 'count') {
			const ok = amounts.length <= left;
			checks.push({ limit, what, batch: amounts.length, ceiling: entry.ceiling, remaining: left, ok, over: ok ? 0 : amounts.length - left });
			if (!ok)
				problems.push(
					`${amounts.length} orders but only ${left} ${what} left (${limit}${entry.ceiling !== undefined ? ` ${entry.ceiling}` : ''}): ${amounts.length - left} too many`,
				);
		} else {
			const overPips = total - toPips(left);
			const ok = overPips <= 0n;
			checks.push({ limit, what, batch: usd(total), ceiling: entry.ceiling, remaining: left, ok, over: ok ? 0 : usd(overPips) });
			if (!ok)
				problems.push(
					`the batch totals ${usd(total)} USD but only ${left} ${what} is left (${limit}${entry.ceiling !== undefined ? ` ${entry.ceiling}` : ''}): ${usd(overPips)} USD over`,
				);
		}
	}
	const ok = problems.length === 0;
	const size = `${amounts.length} order${amounts.length === 1 ? '' : 's'}, ${usd(total)} USD in total, the largest ${usd(largest)} USD`;
	const unchecked = notChecked.length > 0 ? ` Not checked (absent from the account's limits): ${notChecked.join(', ')}.` : '';
	return {
		ok,
		summary: ok
			? `The batch fits the account limits: ${size}.${unchecked}`
			: `The batch would exceed ${problems.length === 1 ? 'a limit' : `${problems.length} limits`} (${size}): ${problems.join('; ')}.${unchecked}`,
		orders: amounts.length,
		totalUsd: usd(total),
		largestUsd: usd(largest),
		largestItem: largestIndex + 1,
		problems,
		checks: checks as unknown as IDataObject[],
		notChecked,
		note: 'Every order is counted in the current netting window and today, as if paid now; orders made after the window closes count in the next one. Limits belong to the parent account and count every subaccount.',
	};
}
