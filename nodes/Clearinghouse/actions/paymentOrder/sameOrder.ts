import type { IDataObject } from 'n8n-workflow';

import { toPips } from '../../../shared/amounts';

/**
 * Whether an order that already holds a Business Key is the payment this item asks for. Only what
 * the person chose counts (who pays whom, how much, on which chain, in which asset, with which memo,
 * mode and quote); what the node or the service computes (the expiry counted from the run's start,
 * ids, status, fees) never makes two requests different payments. Pure: unit-tested on its own.
 */

/** The fields compared, in the order a message lists them. */
export const USER_FIELDS = ['fromUserId', 'toAddress', 'toChain', 'asset', 'amountUsd', 'memo', 'mode', 'quoteId'] as const;
export type UserField = (typeof USER_FIELDS)[number];

/** Panel labels with Order Fields → Define Below. */
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

/** Labels with Order Fields → Map Automatically: the input fields read by name. */
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
	/** As the order holds it, and as this item sends it (text for the message). */
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

/**
 * The user-chosen fields in which `order` differs from the request `sent`. The mode is compared only
 * when the order states one of the two modes a request can ask for (one sample shows `netted`).
 */
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
