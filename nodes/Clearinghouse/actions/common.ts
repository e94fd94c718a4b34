import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { AmountError, parseUsdAmount, type UsdAmount } from '../../shared/amounts';
import { firstTry, type FirstTry } from '../../shared/firstTries';
import { readJsonPath, trivialJsonPath } from '../../shared/jsonPath';
import {
	deriveIdempotencyKey,
	formatLineage,
	IdempotencyKeyError,
	LINEAGE_CUSTOM_DATA_KEY,
	type Lineage,
	mintLineage,
	parseLineage,
	validateIdempotencyKey,
} from '../../shared/idempotency';

/** Shared fields and small helpers of the operations. Each operation file still owns its own fields. */

export const DYNAMIC_OPTIONS_HINT =
	'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>';

/** A dropdown loaded from GET /supported-assets (chains or asset symbols); expressions still work. */
function supportedAssetDropdown(
	base: Pick<INodeProperties, 'displayName' | 'name'>,
	loadOptionsMethod: string,
	overrides: Partial<INodeProperties>,
): INodeProperties {
	return {
		...base,
		type: 'options',
		typeOptions: { loadOptionsMethod },
		required: true,
		default: '',
		description:
			'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
		...overrides,
	} as INodeProperties;
}

export function chainField(overrides: Partial<INodeProperties> = {}): INodeProperties {
	return supportedAssetDropdown({ displayName: 'Chain Name or ID', name: 'toChain' }, 'getChains', overrides);
}

/** The asset dropdown lists the assets of the chain chosen in `chainParameter` (reloaded when it changes). */
export function assetField(overrides: Partial<INodeProperties> = {}, chainParameter = 'toChain'): INodeProperties {
	return supportedAssetDropdown({ displayName: 'Asset Name or ID', name: 'asset' }, 'getAssets', {
		typeOptions: { loadOptionsMethod: 'getAssets', loadOptionsDependsOn: [chainParameter] },
		...overrides,
	});
}

export const amountField: INodeProperties = {
	displayName: 'Amount (USD)',
	name: 'amountUsd',
	type: 'string',
	required: true,
	default: '',
	placeholder: '125.50',
	description:
		'US dollars to deliver, greater than 0 with at most 4 decimal places (steps of 0.0001). Checked exactly before anything is sent.',
};

/** Options → Concurrency: read once by the router for the whole run. */
export const concurrencyOption: INodeProperties = {
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 50 },
	default: 5,
	description:
		'How many input items are processed at the same time. Output order, paired items and Continue On Fail behave exactly as one at a time. Set to 1 to process items one after another.',
};

/** The Options collection of an operation: its own options plus Concurrency. */
export function optionsCollection(options: INodeProperties[] = []): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [...options, concurrencyOption].sort((a, b) =>
			a.displayName.localeCompare(b.displayName),
		),
	};
}

/** Subaccount on a write (body field `subaccountId`). */
export const subaccountWriteOption: INodeProperties = {
	displayName: 'Subaccount ID',
	name: 'subaccountId',
	type: 'string',
	default: '',
	placeholder: 'e.g. 3f0c9c4e-8a21-4b7d-9e65-1c2d3e4f5a6b',
	description: 'Act for a direct child subaccount of this account (UUID). Leave empty for this account.',
};

/** Subaccount owning an existing order on a write to it (body field `subaccountId`). */
export const subaccountOrderOption: INodeProperties = {
	...subaccountWriteOption,
	description:
		'The direct child subaccount (UUID) whose order this is. Leave empty for an order of this account: without it the service looks only in this account.',
};

/** Subaccount on a read (query `subaccountId`). */
export const subaccountReadOption: INodeProperties = {
	...subaccountWriteOption,
	description: 'Read a direct child subaccount of this account (UUID). Leave empty for this account.',
};

export const includeSubaccountsOption: INodeProperties = {
	displayName: 'Include Subaccounts',
	name: 'includeSubaccounts',
	type: 'boolean',
	default: false,
	description:
		'Whether to span this account and all its subaccounts. Cannot be combined with Subaccount ID.',
};

/** Return All / Limit for a list operation. */
export function returnAllFields(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

/** Options → Page Size of the list operations that page through limit/offset. */
export const pageSizeOption: INodeProperties = {
	displayName: 'Page Size',
	name: 'pageSize',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 1000 },
	default: 1000,
	description: 'How many records to ask for per request (1-1000); smaller pages mean more, shorter requests',
};

export function pageSize(ctx: IExecuteFunctions, itemIndex: number): number {
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const size = Math.floor(Number(options.pageSize ?? 1000));
	return Number.isFinite(size) ? Math.min(1000, Math.max(1, size)) : 1000;
}

/** Undefined for Return All, otherwise the Limit. */
export function listLimit(ctx: IExecuteFunctions, itemIndex: number): number | undefined {
	const returnAll = ctx.getNodeParameter('returnAll', itemIndex, false) as boolean;
	return returnAll ? undefined : (ctx.getNodeParameter('limit', itemIndex, 50) as number);
}

export const paymentOrderLocator: INodeProperties = {
	displayName: 'Payment Order',
	name: 'paymentOrderId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The payment order to act on',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchPaymentOrders', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 9b2f6c1e-4d3a-4f8e-a1c7-2e5d8b0f3a69',
		},
	],
};

export const webhookEndpointLocator: INodeProperties = {
	displayName: 'Webhook Endpoint',
	name: 'endpointId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The webhook endpoint to act on',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			typeOptions: { searchListMethod: 'searchWebhookEndpoints', searchable: true },
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 6a1f3c2e-5b7d-4e09-8c14-9d2a7f3b1e58',
		},
	],
};

/** The id of a resource locator (or a plain string), refused when empty. */
export function locatorValue(ctx: IExecuteFunctions, name: string, itemIndex: number, label: string): string {
	const value = ctx.getNodeParameter(name, itemIndex, '', { extractValue: true }) as unknown;
	const id = typeof value === 'string' || typeof value === 'number' ? String(value).trim() : '';
	if (id === '') throw fail(ctx, `${label} is required`, itemIndex);
	return id;
}

/**
 * A top-level parameter of one item: a trivial `={{ $json.a.b }}` that reaches a string or a finite
 * number is read from the input item without n8n's expression engine (shared/jsonPath.ts, the same
 * value as the engine's); anything else is n8n's getNodeParameter.
 */
export function itemParameter(ctx: IExecuteFunctions, name: string, itemIndex: number, fallback: unknown): unknown {
	const path = trivialJsonPath(ctx.getNode().parameters[name]);
	if (path) {
		const found = readJsonPath(ctx.getInputData()[itemIndex]?.json, path);
		if (found) return found.value;
	}
	return ctx.getNodeParameter(name, itemIndex, fallback as never);
}

/** A required text parameter, trimmed; refused when empty. */
export function requiredText(ctx: IExecuteFunctions, name: string, itemIndex: number, label: string): string {
	const value = String(itemParameter(ctx, name, itemIndex, '') ?? '').trim();
	if (value === '') throw fail(ctx, `${label} is required`, itemIndex);
	return value;
}

/** An optional text value from a collection, trimmed; undefined when empty. */
export function optionalText(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	const text = String(value).trim();
	return text === '' ? undefined : text;
}

export function fail(
	ctx: IExecuteFunctions,
	message: string,
	itemIndex: number,
	description?: string,
): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
}

/** parseUsdAmount with the error as a NodeOperationError naming the field and the rule. */
export function usdAmount(
	ctx: IExecuteFunctions,
	input: unknown,
	itemIndex: number,
	field = 'Amount (USD)',
): UsdAmount {
	try {
		return parseUsdAmount(input, field);
	} catch (error) {
		if (error instanceof AmountError) throw fail(ctx, `${error.field} ${error.rule}`, itemIndex);
		throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
	}
}

/** `[{chain, address}]` from a fixedCollection, refusing a second wallet on the same chain. */
export function chainWallets(
	ctx: IExecuteFunctions,
	collection: unknown,
	itemIndex: number,
	label: string,
	onePerChain: boolean,
): Array<{ chain: string; address: string }> {
	const entries = ((collection as IDataObject | undefined)?.wallet as IDataObject[] | undefined) ?? [];
	const wallets = entries.map((entry, n) => {
		const chain = optionalText(entry.chain);
		const address = optionalText(entry.address);
		if (!chain || !address) {
			throw fail(ctx, `${label} #${n + 1} needs both a chain and an address`, itemIndex);
		}
		return { chain, address };
	});
	if (onePerChain) {
		const seen = new Set<string>();
		for (const { chain } of wallets) {
			if (seen.has(chain)) {
				throw fail(ctx, `${label} allows one wallet per chain; "${chain}" appears more than once`, itemIndex);
			}
			seen.add(chain);
		}
	}
	return wallets;
}

/** A wallets fixedCollection (`{wallet: [{chain, address}]}`). */
export function walletsField(name: string, displayName: string, description: string): INodeProperties {
	return {
		displayName,
		name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Wallet',
		default: {},
		description,
		options: [
			{
				displayName: 'Wallet',
				name: 'wallet',
				values: [
					chainField({ name: 'chain', description: `Chain of the wallet. ${DYNAMIC_OPTIONS_HINT}.` }),
					{
						displayName: 'Address',
						name: 'address',
						type: 'string',
						default: '',
						placeholder: 'e.g. 0x52908400098527886e0f7030069857d2e4169ee7',
						description: 'Wallet address on that chain',
					},
				],
			},
		],
	};
}

/** Shown on the keyed writes while Derived is selected, and in the field's description. */
export const DERIVED_KEY_WARNING =
	"n8n's Retry (Retry On Fail, and Retry in the executions list) sends the same Derived key, so an item that already succeeded is not written again. A new execution (Execute Workflow, a schedule, a new webhook call) gets new Derived keys and writes again: use a Business Key for scheduled and batch payouts.";

/**
 * "Idempotency Key": derived (default) or a business key. The derived key is anchored on the
 * execution's lineage (see executionLineage), so n8n's retries send the same key.
 */
export const idempotencyFields: INodeProperties[] = [
	{
		displayName: 'Idempotency Key',
		name: 'idempotencyKeyMode',
		type: 'options',
		default: 'derived',
		options: [
			{
				name: 'Derived',
				value: 'derived',
				description: 'Same key in n8n retries of this execution; new key in a new execution',
			},
			{
				name: 'Business Key',
				value: 'custom',
				description: 'Your own key (e.g. invoice number): also safe when the workflow runs again',
			},
		],
		description: 'How the key that stops this write from happening twice is chosen. ' + DERIVED_KEY_WARNING,
	},
	{
		displayName: DERIVED_KEY_WARNING,
		name: 'derivedKeyNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { idempotencyKeyMode: ['derived'] } },
	},
	{
		displayName: 'Business Key',
		name: 'idempotencyKey',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. {{ $json.invoiceNumber }}',
		description:
			'1-255 characters, unique for each intended write. Sending the same key again returns the original result instead of acting twice.',
		displayOptions: { show: { idempotencyKeyMode: ['custom'] } },
	},
];

/**
 * The lineage of this execution, read from n8n's execution custom data (a retry carries it), or
 * minted and stored there by the first keyed write of a new execution. Undefined when it can be
 * neither read nor stored (callers that need it fail closed).
 */
export function executionLineage(ctx: IExecuteFunctions): { lineage?: Lineage; minted: boolean; problem?: string } {
	let customData: IExecuteFunctions['customData'];
	try {
		customData = ctx.customData;
	} catch (error) {
		return { minted: false, problem: `n8n gave no execution custom data (${(error as Error).message})` };
	}
	const found = parseLineage(customData.get(LINEAGE_CUSTOM_DATA_KEY));
	if (found) return { lineage: found, minted: false };
	if (ctx.getMode() === 'retry') {
		return {
			minted: false,
			problem:
				'this is a retry, and the execution it retries holds no key lineage (it ran an older version of this node, or its custom data was full)',
		};
	}
	// Read, mint and store with no await in between: items running concurrently share one lineage.
	const lineage = mintLineage(String(ctx.getExecutionId() ?? ''), Date.now());
	try {
		customData.set(LINEAGE_CUSTOM_DATA_KEY, formatLineage(lineage));
	} catch {
		// checked just below
	}
	const stored = parseLineage(customData.get(LINEAGE_CUSTOM_DATA_KEY));
	if (stored?.nonce !== lineage.nonce) {
		return {
			minted: false,
			problem:
				"n8n did not keep the key lineage in the execution's custom data (it holds at most 10 entries; this workflow may already use them all)",
		};
	}
	return { lineage, minted: true };
}

export interface KeyedWrite {
	key: string;
	lineage?: Lineage;
	/** True when no earlier request can have carried this key (a new lineage, a Derived key). */
	newKey: boolean;
}

/**
 * The key for one keyed write to `request` (the endpoint and its target, never the body): the
 * user's business key, or one derived from the lineage, node, run and item. Fails closed, before
 * anything is sent, when a Derived key cannot be anchored on the lineage.
 */
export function keyedWrite(
	ctx: IExecuteFunctions,
	itemIndex: number,
	request: string,
	/** The business key read elsewhere (an input item's field) instead of the Business Key parameter. */
	businessKey?: { value: unknown; label: string },
): KeyedWrite {
	const mode = ctx.getNodeParameter('idempotencyKeyMode', itemIndex, 'derived') as string;
	const { lineage, minted, problem } = executionLineage(ctx);
	if (mode === 'custom') {
		try {
			const key = businessKey
				? validateIdempotencyKey(businessKey.value, businessKey.label)
				: validateIdempotencyKey(itemParameter(ctx, 'idempotencyKey', itemIndex, ''), 'Business Key');
			return { key, lineage, newKey: false };
		} catch (error) {
			if (error instanceof IdempotencyKeyError) throw fail(ctx, `${error.field} ${error.rule}`, itemIndex);
			throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
		}
	}
	if (!lineage) {
		throw fail(
			ctx,
			'Nothing was sent for this item: its Derived idempotency key cannot be made safe for this run',
			itemIndex,
			`Why: ${problem}. Without it a retry could write a second time. What to do: check which orders or records already exist (Get Many), then either use a Business Key (Idempotency Key → Business Key), or run the workflow anew for the items that are missing.`,
		);
	}
	const key = deriveIdempotencyKey({
		instanceId: ctx.getInstanceId(),
		workflowId: String(ctx.getWorkflow().id ?? ''),
		lineage: lineage.nonce,
		nodeId: ctx.getNode().id ?? ctx.getNode().name,
		runIndex: runIndexOf(ctx, itemIndex),
		itemIndex,
		request,
	});
	return { key, lineage, newKey: minted || lineage.executionId === String(ctx.getExecutionId() ?? '') };
}

/** Which run of this node this is (a loop runs a node several times in one execution). */
function runIndexOf(ctx: IExecuteFunctions, itemIndex: number): number {
	const value = Number(ctx.getWorkflowDataProxy(itemIndex).$runIndex);
	return Number.isInteger(value) && value >= 0 ? value : 0;
}

/**
 * The request first sent with this key for this item in this execution (Retry On Fail re-runs the
 * node; `$now` or random expressions then resolve differently), or `request` itself the first time.
 */
export function sameRequestAsFirstTry<T>(
	ctx: IExecuteFunctions,
	itemIndex: number,
	key: string,
	request: T,
): FirstTry<T> {
	const id = [
		ctx.getInstanceId(),
		ctx.getWorkflow().id,
		ctx.getExecutionId(),
		ctx.getNode().id ?? ctx.getNode().name,
		runIndexOf(ctx, itemIndex),
		itemIndex,
		key,
	].join('|');
	return firstTry(id, request);
}

/**
 * The error of a keyed write as a node error; a 409 said the way it happened: the record exists
 * with other values (the key was first used with another request), and nothing new was made.
 */
export function keyedWriteError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
	key: string,
	what: string,
): NodeApiError | NodeOperationError {
	const failure =
		error instanceof NodeApiError || error instanceof NodeOperationError
			? error
			: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
	// For orders and rulesets a 409 can only mean a reused key (the spec); return details and reward
	// rules have other 409s (stale revision, full library), so there the answer must name the key.
	const keyReused =
		failure instanceof NodeApiError &&
		failure.httpCode === '409' &&
		(what === 'payment order' ||
			what === 'receive ruleset' ||
			/idempot/i.test([failure.message, ...(failure.messages ?? [])].join(' ')));
	if (keyReused) {
		failure.message =
			what === 'return details'
				? "This item's return details were already sent with this key with other values or another expected revision: check the order's return details before writing again"
				: `This item's ${what} already exists with other values: check it before ${what === 'payment order' ? 'paying' : 'writing'} again`;
		failure.description =
			`The idempotency key ${key} was already used for a ${what} with a different request (for example another amount, recipient or expiry, changed before a retry), so nothing new was created. ` +
			`Check the existing ${what} (Get or Get Many). To make a new one on purpose, run the workflow anew or use a new Business Key.`;
	}
	return failure;
}

/** Webhook secrets appear only in the outputs of Create and Rotate Secret. */
export function withoutSecrets(record: IDataObject): IDataObject {
	const rest = { ...record };
	delete rest.secret;
	delete rest.secretNext;
	return rest;
}

/** Parses a JSON parameter (object or text) into an object. */
export function jsonObject(ctx: IExecuteFunctions, value: unknown, itemIndex: number, label: string): IDataObject {
	let parsed: unknown = value;
	if (typeof value === 'string') {
		if (value.trim() === '') return {};
		try {
			parsed = JSON.parse(value);
		} catch {
			throw fail(ctx, `${label} must be valid JSON`, itemIndex);
		}
	}
	if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
		throw fail(ctx, `${label} must be a JSON object`, itemIndex);
	}
	return parsed as IDataObject;
}
