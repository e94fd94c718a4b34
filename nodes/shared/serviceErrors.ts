import type { IDataObject, JsonObject } from 'n8n-workflow';

import { chainDisplayName, fieldLabelOfPath, LIMIT_WORDS, replaceApiNames } from './labels';

/**
 * A service error (4xx/5xx) said in the panel's words: the headline names the field's panel label,
 * the value given and the rule; the description keeps the service's own sentence, its error code,
 * the HTTP status and the field path. Pure: the transport fetches the supported assets when
 * `needsSupportedAssets` says the answer is about a chain or an asset.
 */
export interface ServiceErrorText {
	message: string;
	description: string;
	/** The node parameter the error is about (top-level API name), for n8n's "In or underneath Parameter". */
	apiField?: string;
}

export interface SupportedAsset {
	chain: string;
	symbol: string;
}

/** What failed, as far as this module needs it. */
export interface FailedRequest {
	body?: IDataObject;
	qs?: IDataObject;
}

/** Codes without a `path` whose field is still clear from the code itself. */
export const CODE_LABELS: Record<string, string> = {
	payment_order_not_found: 'Payment Order',
	order_not_cancelable: 'Payment Order',
	order_not_awaiting_funds: 'Payment Order',
	returns_committed: 'Payment Order',
	webhook_endpoint_not_found: 'Webhook Endpoint',
	no_rotation_in_progress: 'Webhook Endpoint',
	webhook_delivery_not_found: 'Delivery ID',
	ruleset_not_found: 'Ruleset ID',
	ruleset_deactivated: 'Ruleset ID',
	return_user_not_found: 'Return User ID',
	stale_revision: 'Expected Revision',
	activation_in_progress: 'Wallets',
	idempotency_key_reused: 'Idempotency Key',
	capability_required: 'Settlement Mode',
	custody_wallet_not_provisioned: 'Subaccount ID',
	unauthorized: "Clearinghouse credential's API Key",
	account_not_active: 'Clearinghouse credential (its account)',
	forbidden: 'Subaccount ID',
	subaccount_read_only: 'Subaccount ID',
	library_full: 'Reward Rule',
	invalid_request: 'Include Subaccounts',
};

const STATUS_HINTS: Record<number, string> = {
	400: 'The service rejected the request as invalid: correct the field named above and run it again.',
	401: 'The API key was missing or not accepted. Check the API Key of the Clearinghouse credential.',
	403: 'The account must be ACTIVE with KYB APPROVED, and the resource or subaccount must belong to this account (a paused subaccount is read-only; webhook management for a subaccount needs its own key).',
	404: 'Not found, or not visible to this account.',
	409: 'Conflict: an idempotency key was reused with a different request, or the resource is not in a state that allows this (for example cancelling an order that is neither AWAITING_FUNDS nor FUNDED, or a stale return-details revision).',
	412: 'Precondition failed: for example the subaccount custody wallet is not provisioned yet.',
	422: 'The request is well-formed but breaks a rule of the service (see the message and path).',
	429: 'Too many requests. Retry after the interval the service asked for, with the same idempotency key.',
	500: 'Unexpected server error. Retry later with the same idempotency key.',
	503: 'Temporarily unavailable (for example an instant-payment deposit address). Retry shortly with the same idempotency key.',
};

const CHAIN_FIELDS = /(^|\.)(toChain|deliveredChain|chain)$/;
const ASSET_FIELDS = /(^|\.)(asset|deliveredAsset)$/;

function text(value: unknown): string {
	return typeof value === 'string' ? value.trim() : '';
}

/** True when the valid chains or assets would help the reader: the error is about a chain or an asset. */
export function needsSupportedAssets(payload: JsonObject): boolean {
	const path = text(payload.path);
	return CHAIN_FIELDS.test(path) || ASSET_FIELDS.test(path) || payload.error === 'unsupported_corridor' || typeof payload.chain === 'string';
}

/** The value at an API path (`wallets[0].chain`, `headers.if-match` has none) in the body or query. */
export function valueAtPath(request: FailedRequest | undefined, path: string): unknown {
	if (!request || path === '' || path.startsWith('headers.')) return undefined;
	const steps = path.match(/[^.[\]]+/g) ?? [];
	for (const source of [request.body, request.qs]) {
		let at: unknown = source;
		for (const step of steps) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[step] : undefined;
		if (at !== undefined && (typeof at !== 'object' || at === null)) return at;
	}
	return undefined;
}

function quoted(value: unknown): string {
	if (value === undefined || value === null) return '';
	const s = String(value);
	return ` "${s.length > 80 ? `${s.slice(0, 80)}…` : s}"`;
}

function chainList(assets: SupportedAsset[]): string {
	const chains = [...new Set(assets.map((a) => a.chain))].sort();
	return chains.map((c) => `${chainDisplayName(c)} (${c})`).join(', ');
}

function assetsOn(assets: SupportedAsset[], chain: string): string[] {
	return [...new Set(assets.filter((a) => a.chain === chain).map((a) => a.symbol))].sort();
}

/** The valid values for a chain or asset error, from GET /supported-assets, as one sentence. */
function validValues(path: string, chain: string, assets: SupportedAsset[] | undefined): string {
	if (!assets || assets.length === 0) return '';
	const chainIsValid = chain !== '' && assets.some((a) => a.chain === chain);
	if (ASSET_FIELDS.test(path) && chainIsValid) return ` Assets on ${chainDisplayName(chain)}: ${assetsOn(assets, chain).join(', ')}.`;
	return ` Valid chains: ${chainList(assets)}.`;
}

/** The service's sentence without a leading `path: ` (zod messages carry it) and with API names in panel words. */
function ruleOf(sentence: string, path: string): string {
	let rule = sentence;
	if (path !== '' && rule.startsWith(`${path}: `)) rule = rule.slice(path.length + 2);
	return replaceApiNames(rule);
}

function lowerFirst(s: string): string {
	return /^[A-Z][a-z]/.test(s) ? s[0].toLowerCase() + s.slice(1) : s;
}

export function describeServiceError(statusCode: number, payload: JsonObject, request?: FailedRequest, assets?: SupportedAsset[]): ServiceErrorText {
	const code = text(payload.error);
	const serviceMessage = text(payload.message);
	// Some answers carry their sentence in `error` (no code); keep whichever sentence there is.
	const sentence = serviceMessage !== '' ? serviceMessage : code.includes(' ') ? code : '';
	const apiCode = code !== '' && !code.includes(' ') ? code : '';
	const path = text(payload.path);
	const value = valueAtPath(request, path);
	const body = request?.body ?? {};
	const chain = text(payload.chain) || text(value !== undefined && CHAIN_FIELDS.test(path) ? value : '') || text(body.toChain) || text(body.deliveredChain);
	const label = path !== '' ? fieldLabelOfPath(path) : CODE_LABELS[apiCode];

	let message: string;
	if (apiCode === 'recipient_not_active') {
		const state = /\(([A-Z_]+)\)/.exec(sentence)?.[1];
		const onChain = chain ? ` on ${chainDisplayName(chain)}` : '';
		const what = state
			? `is not active yet${onChain} (${state})`
			: /not a registered wallet/.test(sentence)
				? `is not a registered wallet of the account${onChain}`
				: `is not an active registered wallet of the account${onChain}`;
		message =
			`Recipient Address${quoted(value ?? body.toAddress)} ${what}. ` +
			'A recipient becomes active when its wallet is registered to a user (User → Create or Update, Wallets) and the service activates it, which is not instant: run this again once the wallet is ACTIVE';
	} else if (apiCode === 'limit_exceeded') {
		const limit = text(payload.limit);
		message = `Amount (USD)${quoted(body.amountUsd)} would exceed the account's ${LIMIT_WORDS[limit] ?? 'limit'}: ${ruleOf(sentence, '')}. Account → Check Batch Against Limits shows a whole batch against the limits before paying`;
	} else if (/^Unsupported /.test(sentence) && label) {
		const on = / on (\S+)$/.exec(sentence)?.[1];
		message = `${label}${quoted(value)} is not supported${on ? ` on ${chainDisplayName(on)}` : ''}.${validValues(path || 'asset', chain, assets)}`.replace(
			/\.$/,
			'',
		);
	} else if (label) {
		const rule = ruleOf(sentence || apiCode.replace(/_/g, ' ') || `HTTP ${statusCode}`, path);
		const extra = needsSupportedAssets(payload) ? validValues(path || 'asset', chain, assets) : '';
		// A sentence that already names the field reads best as it is.
		const head = rule.toLowerCase().startsWith(`${label.toLowerCase()} `)
			? `${label}${rule.slice(label.length)}`
			: `${label}${quoted(value)}: ${lowerFirst(rule)}`;
		message = `${head}${extra ? `.${extra.replace(/\.$/, '')}` : ''}`;
	} else {
		const rule = ruleOf(sentence || apiCode.replace(/_/g, ' ') || `HTTP ${statusCode}`, path);
		const extra = needsSupportedAssets(payload) ? validValues('chain', chain, assets).replace(/\.$/, '') : '';
		message = `${statusCode >= 500 ? 'The Clearinghouse service failed' : 'The Clearinghouse service refused the request'}: ${rule}${extra}`;
	}

	const said = sentence !== '' ? `The service said: "${sentence}" ` : '';
	const ids = [apiCode ? `API code ${apiCode}` : '', `HTTP ${statusCode}`, path ? `field ${path}` : ''].filter(Boolean).join(', ');
	const hint = STATUS_HINTS[statusCode] ?? 'The service answered with an unexpected status.';
	const top = path.match(/^[A-Za-z]+/)?.[0];
	return { message, description: `${said}(${ids}). ${hint}`, apiField: top };
}
