import type { IDataObject } from 'n8n-workflow';

/** How users name the chains the API calls `ethereum`, `base`, ...; unknown chains get a capital. */
const CHAIN_NAMES: Record<string, string> = {
	ethereum: 'Ethereum',
	base: 'Base',
	solana: 'Solana',
	polygon: 'Polygon',
	arbitrum: 'Arbitrum',
	optimism: 'Optimism',
	avalanche: 'Avalanche',
	tron: 'Tron',
	stellar: 'Stellar',
	bsc: 'BNB Smart Chain',
};

export function chainDisplayName(chain: string): string {
	return CHAIN_NAMES[chain.toLowerCase()] ?? (chain === '' ? chain : chain[0].toUpperCase() + chain.slice(1));
}

/** `0x52908400…9ee7`: enough to recognise an address in a list without filling the row. */
export function shortAddress(address: string): string {
	return address.length > 14 ? `${address.slice(0, 8)}…${address.slice(-4)}` : address;
}

/** `2026-11-26 09:30 UTC` from an ISO date-time; the text as given when it is not one. */
function shortUtcTime(value: unknown): string {
	if (typeof value !== 'string' || value === '') return '';
	const ms = Date.parse(value);
	return Number.isNaN(ms) ? value : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** A payment order's row in From List: what identifies the payout for a person, then its creation and id start, so two alike differ. */
export function paymentOrderLabel(order: IDataObject): string {
	const parts = [
		`${String(order.amountUsd ?? '?')} ${String(order.asset ?? '')}`.trim(),
		order.toChain ? `on ${chainDisplayName(String(order.toChain))}` : '',
	].filter(Boolean);
	const memo = typeof order.memo === 'string' && order.memo.trim() !== '' ? `${order.memo.trim()} · ` : '';
	const to = order.toAddress ? ` · to ${shortAddress(String(order.toAddress))}` : '';
	const created = shortUtcTime(order.createdAt);
	const id = order.id ? ` · #${String(order.id).slice(0, 8)}` : '';
	return `${memo}${parts.join(' ')} · ${String(order.status ?? '')}${to}${created ? ` · created ${created}` : ''}${id}`;
}

/** The panel label of each field the API names in an error's `path` (or its sentence). */
export const FIELD_LABELS: Record<string, string> = {
	toChain: 'Chain',
	asset: 'Asset',
	amountUsd: 'Amount (USD)',
	fromUserId: 'Sender User ID',
	toAddress: 'Recipient Address',
	expiresAt: 'Expires At',
	memo: 'Memo',
	quoteId: 'Quote ID',
	mode: 'Mode',
	subaccountId: 'Subaccount ID',
	includeSubaccounts: 'Include Subaccounts',
	idempotencyKey: 'Idempotency Key',
	'headers.idempotency-key': 'Idempotency Key',
	'headers.if-match': 'Expected Revision',
	deliveredChain: 'Delivered Chain',
	deliveredAsset: 'Delivered Asset',
	name: 'Name',
	metadata: 'Metadata',
	label: 'Label',
	wallets: 'Wallets',
	returnWallets: 'Return Wallets',
	userId: 'Return User ID',
	transactions: 'Transactions',
	hash: 'Transaction Hash',
	chain: 'Chain',
	address: 'Address',
	url: 'URL',
	description: 'Description',
	status: 'Status',
	eventTypes: 'Event Types',
	definition: 'Definition',
	isDefault: 'Default',
	createdAfter: 'Created After',
	createdBefore: 'Created Before',
	limit: 'Limit',
	offset: 'Offset',
	endpointId: 'Endpoint ID',
	type: 'Event Type',
	epochId: 'Epoch ID',
	immediate: 'Rotation',
	reason: 'Reason',
};

/** API names one request sends for a field the panel labels otherwise: Set Return Details sends its Return Wallets as `wallets`. */
const REQUEST_FIELD_LABELS: Array<{ path: RegExp; labels: Record<string, string> }> = [{ path: /\/return-details$/, labels: { wallets: 'Return Wallets' } }];

/**
 * The panel label of an error path: `wallets[1].address` → Wallets → item 2 → Address, `definition.a.b` →
 * Definition (at a.b); an unknown path keeps its API name. `requestPath`: where the request went.
 */
export function fieldLabelOfPath(path: string, requestPath = ''): string {
	const ofRequest = REQUEST_FIELD_LABELS.find((entry) => entry.path.test(requestPath))?.labels ?? {};
	const labelOf = (name: string): string | undefined => ofRequest[name] ?? FIELD_LABELS[name];
	if (labelOf(path)) return labelOf(path)!;
	const match = /^([A-Za-z]+)(?:\[(\d+)\])?(?:\.(.+))?$/.exec(path);
	if (!match) return path;
	const [, top, index, rest] = match;
	const label = labelOf(top);
	if (!label) return path;
	if (index !== undefined && rest && FIELD_LABELS[rest]) return `${label} → item ${Number(index) + 1} → ${FIELD_LABELS[rest]}`;
	if (index !== undefined && !rest) return `${label} → item ${Number(index) + 1}`;
	return rest ? `${label} (at ${index !== undefined ? `[${index}].` : ''}${rest})` : label;
}

/** API names that read as code inside a sentence (camelCase and headers), and their panel labels. */
const API_WORDS = Object.entries(FIELD_LABELS).filter(([name]) => /[A-Z]/.test(name));

/** A service sentence with the API's camelCase field names and header names swapped for panel labels. */
export function replaceApiNames(sentence: string): string {
	let out = sentence.replace(/\bIf-Match\b/g, 'Expected Revision').replace(/\bIdempotency-Key header\b|\bIdempotency-Key\b/g, 'Idempotency Key');
	for (const [name, label] of API_WORDS) out = out.replace(new RegExp(`\\b${name}\\b`, 'g'), label);
	return out;
}
