import type { IDataObject, JsonObject } from 'n8n-workflow';

import { parseUsdAmount, type UsdAmount } from './amounts';
import { chainDisplayName, fieldLabelOfPath, replaceApiNames } from './labels';
import { limitBreaches, limitWords } from './limits';

/** A service error (4xx/5xx) in the panel's words. Pure: the transport reads what it needs (supported assets, limits). */
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

/** The request the node sent, as far as this module needs it. */
export interface FailedRequest {
	method?: string;
	/** Path below /api/v1 (`/payment`). */
	path?: string;
	body?: IDataObject;
	qs?: IDataObject;
	headers?: Record<string, string>;
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

/** What a status means when the message is the service's rule; 403, 409, 412 and the retryable ones: statusHint. */
const STATUS_HINTS: Record<number, string> = {
	400: 'The service rejected the request as invalid: correct the field named above and run it again.',
	401: 'The API key was missing or not accepted. Check the API Key of the Clearinghouse credential.',
	404: 'Not found, or not visible to this account.',
	422: 'The request is well-formed but breaks a rule of the service (see the message and path).',
};

/** What the credential's Test says of a 401 and a 403 (the credential imports nothing of the nodes: a test checks the two agree). */
export const CREDENTIAL_TEST_SAYS = {
	401: 'The API key was not accepted (401). Copy it again from the developer console; for the local sandbox use the key that the sandbox prints when it starts (npx n8n-nodes-clearinghouse-sandbox, or npm start in a clone; the demo key is sk_sandbox_demo_key unless --api-key says otherwise).',
	403: 'The API key is valid, but the account may not use the API yet (403): it must be ACTIVE with KYB APPROVED. Ask the service to finish the account review.',
} as const;

/** A 401, or a 403 that names no Subaccount ID, field or other cause, in the credential Test's words. */
function credentialRefusal(statusCode: number, request: FailedRequest | undefined, path: string, apiCode: string): string | undefined {
	if (statusCode === 401) return `${CREDENTIAL_TEST_SAYS[401]} Then open the Clearinghouse credential and press Test.`;
	// A code that names another cause (a paused subaccount: forbidden) keeps its own words.
	if (statusCode === 403 && path === '' && !sentSubaccount(request) && (apiCode === '' || apiCode === 'account_not_active')) {
		return `${CREDENTIAL_TEST_SAYS[403]} If the credential's Test passes, an ID this request gives belongs to another account: check it is this account's (its Get Many operation lists them).`;
	}
	return undefined;
}

/** The idempotency key a request carried (its body's `idempotencyKey` or the `Idempotency-Key` header). */
export function sentKey(request: FailedRequest | undefined): string {
	const header = Object.entries(request?.headers ?? {}).find(([name]) => name.toLowerCase() === 'idempotency-key')?.[1];
	return text(request?.body?.idempotencyKey) || text(header);
}

/** The Subaccount ID a request named (body or query). */
function sentSubaccount(request: FailedRequest | undefined): string {
	return text(request?.body?.subaccountId) || text(request?.qs?.subaccountId);
}

/** What the status means for this request (cause, then action), from what the node sent, never from the answer's words. */
function statusHint(statusCode: number, request?: FailedRequest, messageNamesSubaccount = false): string {
	const key = sentKey(request);
	const correct = messageNamesSubaccount ? 'Correct it' : 'Correct the Subaccount ID';
	const sub = sentSubaccount(request);
	const read = request?.method === 'GET';
	switch (statusCode) {
		case 403:
			if (sub && read) {
				return `Subaccount ${sub} is not a direct child subaccount of the credential's account. ${correct}, or leave it empty to read the credential's own account.`;
			}
			if (sub) {
				return `Subaccount ${sub} is not a direct child subaccount of the credential's account, or it is paused (suspended or under KYB review, it can be read but not written). ${correct}, or run this again once the subaccount is active.`;
			}
			return "The credential's account may not do this: what the request names belongs to another account, or the account is not ACTIVE with KYB APPROVED. Check that the IDs given are this account's (its Get Many operations list them).";
		case 409:
			if (key) {
				return `The idempotency key ${key} was already used for another request, or what this request names is not in a state that allows it now. Read it with Get before writing again; a different request needs a new key.`;
			}
			return 'What this request names is not in a state that allows it now. Read it with Get and run this again once its state allows it.';
		case 412:
			return sub
				? `The custody wallet of subaccount ${sub} is not provisioned yet. Run this again once the service has provisioned it.`
				: "The custody wallet of the credential's account is not provisioned yet. Run this again once the service has provisioned it.";
		case 429:
			return `Too many requests. Retry after the interval the service asked for${key ? ', with the same idempotency key' : ''}.`;
		case 500:
		case 503:
			if (!read && !key) return 'The service failed and may or may not have acted on this request. Check with Get before sending it again.';
			return `${statusCode === 503 ? 'Temporarily unavailable' : 'Unexpected server error'}. Retry ${statusCode === 503 ? 'shortly' : 'later'}${key ? ' with the same idempotency key' : ''}.`;
		default:
			return STATUS_HINTS[statusCode] ?? 'The service answered with an unexpected status.';
	}
}

const CHAIN_FIELDS = /(^|\.)(toChain|deliveredChain|chain)$/;
const ASSET_FIELDS = /(^|\.)(asset|deliveredAsset)$/;

function text(value: unknown): string {
	return typeof value === 'string' ? value.trim() : '';
}

/** The (chain, asset) pairs a request sends: an order's or quote's, a ruleset's, each wallet's chain (asset empty). */
export function sentPairs(request: FailedRequest | undefined): SentPair[] {
	const body = request?.body ?? {};
	const pairs: SentPair[] = [];
	if (typeof body.toChain === 'string') pairs.push({ chainPath: 'toChain', chain: body.toChain, assetPath: 'asset', asset: text(body.asset) || undefined });
	if (typeof body.deliveredChain === 'string')
		pairs.push({ chainPath: 'deliveredChain', chain: body.deliveredChain, assetPath: 'deliveredAsset', asset: text(body.deliveredAsset) || undefined });
	for (const list of ['wallets', 'returnWallets']) {
		const wallets = body[list];
		if (!Array.isArray(wallets)) continue;
		wallets.forEach((wallet, i) => {
			const chain = (wallet as IDataObject | null)?.chain;
			if (typeof chain === 'string') pairs.push({ chainPath: `${list}[${i}].chain`, chain });
		});
	}
	return pairs;
}

/** True when GET /supported-assets may tell which field a refusal is about (decided from what was sent, not the answer's wording). */
export function needsSupportedAssets(payload: JsonObject, statusCode = 400, request?: FailedRequest): boolean {
	const path = text(payload.path);
	if (CHAIN_FIELDS.test(path) || ASSET_FIELDS.test(path) || typeof payload.chain === 'string') return true;
	return path === '' && (statusCode === 400 || statusCode === 422) && sentPairs(request).length > 0;
}

/** The pairs of a GET /supported-assets answer; undefined when it is not a list (entries without a chain or symbol are left out). */
export function supportedAssetsOf(answer: unknown): SupportedAsset[] | undefined {
	if (!Array.isArray(answer)) return undefined;
	return answer
		.filter((a): a is IDataObject => !!a && typeof a === 'object' && typeof a.chain === 'string' && typeof a.symbol === 'string')
		.map((a) => ({ chain: a.chain as string, symbol: a.symbol as string }));
}

/** A chain and asset a request sends (asset absent for a wallet's chain), with their API paths. */
export interface SentPair {
	chainPath: string;
	chain: string;
	assetPath?: string;
	asset?: string;
}

/** Why `assets` (GET /supported-assets) do not allow this pair, with the valid values; chains compare exactly, symbols in any case. */
export function unsupportedPair(pair: SentPair, assets: SupportedAsset[], requestPath?: string): { message: string; path: string } | undefined {
	if (!assets.some((a) => a.chain === pair.chain)) {
		return {
			path: pair.chainPath,
			message: `${fieldLabelOfPath(pair.chainPath, requestPath)}${quoted(pair.chain)} is not supported. Valid chains: ${chainList(assets)}`,
		};
	}
	if (pair.asset !== undefined && pair.assetPath && !assets.some((a) => a.chain === pair.chain && a.symbol.toUpperCase() === pair.asset!.toUpperCase())) {
		const on = chainDisplayName(pair.chain);
		return {
			path: pair.assetPath,
			message: `${fieldLabelOfPath(pair.assetPath, requestPath)}${quoted(pair.asset)} is not supported on ${on}. Assets on ${on}: ${assetsOn(assets, pair.chain).join(', ')}`,
		};
	}
	return undefined;
}

/**
 * A chain and asset as GET /supported-assets lists them: a chain in any case or by its display name, a
 * symbol in any case. Only a match with exactly one listed value is taken; anything else comes back as given.
 */
export function matchedPair(chain: string, asset: string | undefined, assets: SupportedAsset[]): { chain: string; asset?: string } {
	const squash = (value: string) => value.toLowerCase().replace(/[^a-z0-9]/g, '');
	const chains = [...new Set(assets.map((a) => a.chain))];
	let toChain = chain;
	if (!chains.includes(chain)) {
		const wanted = squash(chain);
		const found = wanted === '' ? [] : chains.filter((c) => squash(c) === wanted || squash(chainDisplayName(c)) === wanted);
		if (found.length === 1) toChain = found[0];
	}
	if (asset === undefined) return { chain: toChain };
	const symbols = [...new Set(assets.filter((a) => a.chain === toChain).map((a) => a.symbol))];
	if (symbols.includes(asset)) return { chain: toChain, asset };
	const found = symbols.filter((s) => s.toLowerCase() === asset.trim().toLowerCase());
	return { chain: toChain, asset: found.length === 1 ? found[0] : asset };
}

/** The first chain or asset the request sent that GET /supported-assets does not list, said in panel words. */
function unsupportedSent(request: FailedRequest | undefined, assets: SupportedAsset[] | undefined): { message: string; path: string } | undefined {
	if (!assets || assets.length === 0) return undefined;
	for (const pair of sentPairs(request)) {
		const problem = unsupportedPair(pair, assets, request?.path);
		if (problem) return problem;
	}
	return undefined;
}

/** The account an order is paid from, in words: the body's Subaccount ID, else the credential's own account. */
function payingAccount(body: IDataObject): string {
	const sub = text(body.subaccountId);
	return sub ? `subaccount ${sub} (Subaccount ID)` : "the credential's own account (no Subaccount ID given)";
}

/** What to do when a sender or recipient does not belong to the paying account (each user belongs to one account). */
function accountFix(body: IDataObject, what: 'sender' | 'recipient' | 'either'): string {
	const newWallet = what === 'sender' ? '' : '; a wallet registered moments ago becomes payable once the service has made it ACTIVE';
	if (text(body.subaccountId)) {
		return `Pay from the account the ${what === 'either' ? 'recipient and sender belong' : `${what} belongs`} to: that subaccount's ID in Additional Fields → Subaccount ID, or Subaccount ID removed for a user of the credential's own account${newWallet}.`;
	}
	return `If the ${what === 'sender' ? 'sender' : 'recipient'} is a user of a subaccount, pay from that subaccount: set Additional Fields → Subaccount ID to its ID and Sender User ID to a user of it${newWallet}.`;
}

/** Payment Order → Create refused for a field the node cannot check itself: who pays whom. */
function partyMessage(apiCode: string, path: string, statusCode: number, request: FailedRequest | undefined): string | undefined {
	const body = request?.body ?? {};
	// An order is the one request that sends both a sender and a recipient (a quote sends no sender).
	if (statusCode !== 400 || typeof body.fromUserId !== 'string' || typeof body.toAddress !== 'string') return undefined;
	const chain = text(body.toChain);
	const onChain = chain ? ` on ${chainDisplayName(chain)}` : '';
	if (path === 'toAddress' || (path === '' && apiCode === 'recipient_not_active')) {
		return `Recipient Address${quoted(body.toAddress)}${onChain} is not a registered wallet of ${payingAccount(body)}, or is not an ACTIVE wallet yet: register it to a user of that account (User → Create or Update User), or remove this row. ${accountFix(body, 'recipient')}`;
	}
	if (path === 'fromUserId') {
		return `Sender User ID${quoted(body.fromUserId)} is not a user of ${payingAccount(body)}, the account this order is paid from. ${accountFix(body, 'sender')}`;
	}
	if (path === '' && apiCode === '') {
		// No field named: Chain, Asset and the amount's form are checked by the node; who pays whom is what is left.
		return (
			`The service refused this order's Sender User ID${quoted(body.fromUserId)} or Recipient Address${quoted(body.toAddress)}${onChain}: both must belong to ${payingAccount(body)}, and the recipient's wallet must be ACTIVE. ` +
			accountFix(body, 'either')
		);
	}
	return undefined;
}

/**
 * The first field this request sent that the sentence names by its camelCase API name (plain words such as
 * `mode` never count), or '': a sentence is read only for a name the request carries, never for its wording.
 */
function fieldNamedIn(sentence: string, request: FailedRequest | undefined): string {
	const names = [...Object.keys(request?.body ?? {}), ...Object.keys(request?.qs ?? {})].filter((name) => /^[a-z]+[A-Z][A-Za-z]*$/.test(name));
	let first = '';
	let at = Infinity;
	for (const name of names) {
		const index = sentence.search(new RegExp(`(^|[^A-Za-z0-9_])${name}($|[^A-Za-z0-9_])`));
		if (index >= 0 && index < at) {
			at = index;
			first = name;
		}
	}
	return first;
}

/** An answer with neither a field path nor a code (the spec's bare `{error: sentence}`). */
export function namesNoField(payload: JsonObject): boolean {
	const code = text(payload.error);
	return text(payload.path) === '' && (code === '' || code.includes(' '));
}

/** The value at an API path (`wallets[0].chain`, `headers.if-match` has none) in the body or query. */
function valueAtPath(request: FailedRequest | undefined, path: string): unknown {
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

/**
 * The error of a refused request in panel words. The field is found from what the node sent, never the
 * answer's wording: its chain and asset against `assets`, the answer's `path` or code, then (an order with
 * neither) the account `limits` and who pays whom. The service's sentence, code and status go to the description.
 */
export function describeServiceError(
	statusCode: number,
	payload: JsonObject,
	request?: FailedRequest,
	assets?: SupportedAsset[],
	limits?: IDataObject,
): ServiceErrorText {
	const code = text(payload.error);
	const serviceMessage = text(payload.message);
	// Some answers carry their sentence in `error` (no code); keep whichever sentence there is.
	const sentence = serviceMessage !== '' ? serviceMessage : code.includes(' ') ? code : '';
	const apiCode = code !== '' && !code.includes(' ') ? code : '';
	const body = request?.body ?? {};
	const refused = statusCode === 400 || statusCode === 422;
	const unsupported = refused ? unsupportedSent(request, assets) : undefined;
	// The field the answer names: its path, else a request field its sentence names by the API name.
	const path = unsupported?.path ?? (text(payload.path) || fieldNamedIn(sentence, request));
	const value = valueAtPath(request, path);
	const chain = text(payload.chain) || text(value !== undefined && CHAIN_FIELDS.test(path) ? value : '') || text(body.toChain) || text(body.deliveredChain);
	const label = path !== '' ? fieldLabelOfPath(path, request?.path) : CODE_LABELS[apiCode];
	const amount = typeof body.amountUsd === 'number' ? parseUsdAmountOrUndefined(body.amountUsd) : undefined;
	// The limits a refused order breached, as an explanation only: the service already refused it, so a
	// limit the node cannot read exactly explains nothing and the service's own refusal is said instead.
	const checked = limits && amount && !unsupported && namesNoField(payload) ? limitBreaches(limits, { order: amount }) : undefined;
	const breaches = checked && 'breaches' in checked ? checked.breaches : [];

	let message: string;
	// Whether the message is the node's own sentence (cause and action) or the service's rule beside a label.
	let ownWords = true;
	const party = unsupported || breaches.length > 0 ? undefined : partyMessage(apiCode, path, statusCode, request);
	const credential = unsupported ? undefined : credentialRefusal(statusCode, request, path, apiCode);
	if (unsupported) {
		message = unsupported.message;
	} else if (credential) {
		message = credential;
	} else if (party) {
		message = party;
	} else if (apiCode === 'limit_exceeded' || breaches.length > 0) {
		const limit = text(payload.limit);
		const which = breaches.length > 0 ? `the account's limits: ${breaches.join('; ')}` : `the account's ${limitWords(limit) ?? 'limits'}`;
		message = `Amount (USD)${quoted(body.amountUsd)} would exceed ${which}. Lower the amount, or check a whole batch first with Account → Check Batch Against Limits.`;
	} else {
		ownWords = false;
		const rule = ruleOf(sentence || apiCode.replace(/_/g, ' ') || `HTTP ${statusCode}`, path);
		if (label) {
			const extra = needsSupportedAssets(payload) ? validValues(path || 'asset', chain, assets) : '';
			// A sentence that already names the field reads best as it is.
			const head = rule.toLowerCase().startsWith(`${label.toLowerCase()} `)
				? `${label}${rule.slice(label.length)}`
				: `${label}${quoted(value)}: ${lowerFirst(rule)}`;
			message = `${head}${extra ? `.${extra.replace(/\.$/, '')}` : ''}`;
		} else {
			const extra = needsSupportedAssets(payload) ? validValues('chain', chain, assets).replace(/\.$/, '') : '';
			message = `${statusCode >= 500 ? 'The Clearinghouse service failed' : 'The Clearinghouse service refused the request'}: ${rule}${extra}`;
		}
	}

	// The details hold what the message does not (the service's sentence unless quoted, code, status, path).
	const said = sentence !== '' && !message.toLowerCase().includes(ruleOf(sentence, path).toLowerCase()) ? `The service said: "${sentence}" ` : '';
	const ids = [apiCode ? `API code ${apiCode}` : '', `HTTP ${statusCode}`, text(payload.path) ? `field ${text(payload.path)}` : ''].filter(Boolean).join(', ');
	const hint = ownWords ? '' : ` ${statusHint(statusCode, request, message.includes(CODE_LABELS.forbidden))}`;
	const top = path.match(/^[A-Za-z]+/)?.[0] ?? (party && /^Recipient/.test(party) ? 'toAddress' : party && /^Sender/.test(party) ? 'fromUserId' : undefined);
	return { message, description: `${said}(${ids}).${hint}`, apiField: top };
}

function parseUsdAmountOrUndefined(value: unknown): UsdAmount | undefined {
	try {
		return parseUsdAmount(value);
	} catch {
		return undefined;
	}
}
