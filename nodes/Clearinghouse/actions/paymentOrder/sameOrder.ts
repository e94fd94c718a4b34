import type { IDataObject } from 'n8n-workflow';

import { toPips } from '../../../shared/amounts';

/**
 * Whether an order that already holds a Business Key is this item's payment. Only what the person chose
 * counts; what the node or service computes (the expiry, ids, status, fees) never makes it another payment.
 */

/** The fields compared, in the order a message lists them. */
export const USER_FIELDS = ['fromUserId', 'toAddress', 'toChain', 'asset', 'amountUsd', 'memo', 'mode', 'quoteId'] as const;
export type UserField = (typeof USER_FIELDS)[number];

export const DEFINED_BELOW_LABELS: Record<UserField, string> = {
	fromUserId: 'Sender User ID',
	toAddress: 'Recipient Address',
	toChain: 'Chain',
	asset: 'Asset',
	amountUsd: 'Amount (USD)',
	memo: 'Memo',
	mode: 'Settlement Mode',
	quoteId: 'Quote ID',
};

export const MAPPED_LABELS: Record<UserField, string> = {
	...DEFINED_BELOW_LABELS,
	fromUserId: 'Input field "fromUserId"',
	toAddress: 'Input field "toAddress"',
	toChain: 'Input field "toChain"',
	asset: 'Input field "asset"',
	amountUsd: 'Input field "amountUsd"',
	memo: 'Input field "memo"',
};

export interface FieldDifference {
	field: UserField;
	label: string;
	order: string;
	sent: string;
}

const shown = (value: unknown): string => (value === undefined || value === null || value === '' ? '(empty)' : String(value));

/** Fields the service may leave out when empty: absent, null and '' are the same there. */
const OPTIONAL: ReadonlySet<UserField> = new Set(['memo', 'quoteId']);

function same(field: UserField, order: unknown, sent: unknown): boolean {
	const empty = (v: unknown) => v === undefined || v === null || v === '';
	if (OPTIONAL.has(field) && empty(order) && empty(sent)) return true;
	if (empty(order)) return false; // a required value the order does not show cannot be confirmed
	if (field === 'amountUsd') {
		try {
			return toPips(order) === toPips(sent);
		} catch {
			return false;
		}
	}
	const a = String(order).trim();
	const b = String(sent ?? '').trim();
	// The service stores EVM addresses lowercased; other addresses (base58) are case-sensitive.
	if (field === 'toAddress' && /^0x[0-9a-f]{40}$/i.test(a)) return a.toLowerCase() === b.toLowerCase();
	if (field === 'asset') return a.toUpperCase() === b.toUpperCase();
	return a === b;
}

/** The chosen fields in which `order` differs from `sent`; the mode only when the order states one a request can ask for (a sample shows `netted`). */
export function differingFields(order: IDataObject, sent: IDataObject, labels: Record<UserField, string> = DEFINED_BELOW_LABELS): FieldDifference[] {
	const differences: FieldDifference[] = [];
	for (const field of USER_FIELDS) {
		if (field === 'mode' && order.mode !== 'standard' && order.mode !== 'instant') continue;
		const sentValue = field === 'mode' ? (sent.mode ?? 'standard') : sent[field];
		if (!same(field, order[field], sentValue)) {
			differences.push({ field, label: labels[field], order: shown(order[field]), sent: shown(sentValue) });
		}
	}
	return differences;
}
