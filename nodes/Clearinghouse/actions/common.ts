import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { AmountError, parseUsdAmount, type UsdAmount } from '../../shared/amounts';
import {
	deriveIdempotencyKey,
	IdempotencyKeyError,
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
	placeholder: 'e.g. 3f0c9c4e-…',
	description: 'Act for a direct child subaccount of this account (UUID). Leave empty for this account.',
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
			placeholder: 'e.g. 6a1f3c2e-…',
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

/** A required text parameter, trimmed; refused when empty. */
export function requiredText(ctx: IExecuteFunctions, name: string, itemIndex: number, label: string): string {
	const value = String(ctx.getNodeParameter(name, itemIndex, '') ?? '').trim();
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

/**
 * "Idempotency Key": derived (default) or a business key. The derived key is the same when n8n
 * re-runs the node (Retry On Fail) or the transport repeats the request, and differs for every
 * other request; a business key (e.g. an invoice number) also survives re-running the execution.
 */
export const idempotencyFields: INodeProperties[] = [
	{
		displayName: 'Idempotency Key',
		name: 'idempotencyKeyMode',
		type: 'options',
		default: 'derived',
		options: [
			{
				name: 'Derived (Safe Against Retries)',
				value: 'derived',
				description:
					'Computed from this n8n instance, workflow, execution, node, item and request: a retry of the node or the request cannot act twice, a new execution makes a new request',
			},
			{
				name: 'Business Key (Safe Against Re-Runs)',
				value: 'custom',
				description:
					'Your own key, such as an invoice number: re-running the whole execution cannot act twice either',
			},
		],
		description: 'How the key that stops this write from happening twice is chosen',
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

/** The key for one keyed write: the user's business key, or one derived from the run and `content`. */
export function idempotencyKey(ctx: IExecuteFunctions, itemIndex: number, content: unknown): string {
	const mode = ctx.getNodeParameter('idempotencyKeyMode', itemIndex, 'derived') as string;
	if (mode === 'custom') {
		try {
			return validateIdempotencyKey(ctx.getNodeParameter('idempotencyKey', itemIndex, ''), 'Business Key');
		} catch (error) {
			if (error instanceof IdempotencyKeyError) throw fail(ctx, `${error.field} ${error.rule}`, itemIndex);
			throw new NodeOperationError(ctx.getNode(), error as Error, { itemIndex });
		}
	}
	return deriveIdempotencyKey({
		instanceId: ctx.getInstanceId(),
		workflowId: String(ctx.getWorkflow().id ?? ''),
		executionId: String(ctx.getExecutionId() ?? ''),
		nodeName: ctx.getNode().name,
		itemIndex,
		content,
	});
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
