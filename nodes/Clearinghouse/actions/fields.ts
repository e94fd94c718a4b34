import type { INodeProperties } from 'n8n-workflow';

/** Field descriptions shared by the operations. */

export const DYNAMIC_OPTIONS_HINT = 'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>';

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
		description: DYNAMIC_OPTIONS_HINT,
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
	description: 'US dollars to deliver, greater than 0 with at most 4 decimal places (steps of 0.0001). Checked exactly before anything is sent.',
};

const concurrencyOption: INodeProperties = {
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
		options: [...options, concurrencyOption].sort((a, b) => a.displayName.localeCompare(b.displayName)),
	};
}

export const subaccountWriteOption: INodeProperties = {
	displayName: 'Subaccount ID',
	name: 'subaccountId',
	type: 'string',
	default: '',
	placeholder: 'e.g. 3f0c9c4e-8a21-4b7d-9e65-1c2d3e4f5a6b',
	description: 'Act for a direct child subaccount of this account (UUID). Leave empty for this account.',
};

/** The subaccount owning an existing order, on a write to it. */
export const subaccountOrderOption: INodeProperties = {
	...subaccountWriteOption,
	description:
		'The direct child subaccount (UUID) whose order this is. Leave empty for an order of this account: without it the service looks only in this account.',
};

export const subaccountReadOption: INodeProperties = {
	...subaccountWriteOption,
	description: 'Read a direct child subaccount of this account (UUID). Leave empty for this account.',
};

export const includeSubaccountsOption: INodeProperties = {
	displayName: 'Include Subaccounts',
	name: 'includeSubaccounts',
	type: 'boolean',
	default: false,
	description: 'Whether to span this account and all its subaccounts. Cannot be combined with Subaccount ID.',
};

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

export const pageSizeOption: INodeProperties = {
	displayName: 'Page Size',
	name: 'pageSize',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: 1000 },
	default: 1000,
	description: 'How many records to ask for per request (1-1000); smaller pages mean more, shorter requests',
};

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

/** A sender: a user's system id, never the label. From List reads GET /users, which the reference does not show: By ID is always there. */
export function senderLocator(field: Pick<INodeProperties, 'displayName' | 'name' | 'description'> & Partial<INodeProperties>): INodeProperties {
	return {
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchUsers', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 80146f91-be0e-47f5-ade4-12f4d64b2c88',
			},
		],
		...field,
	};
}

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

/** What a keyed write does again when a new run sends it with a new key. */
export type KeyedWriteKind = 'payment' | 'returnDetails' | 'write';

/** The one sentence shown while Derived is selected, only on the writes that pay or change where money goes. */
export const DERIVED_NOTICES: Partial<Record<KeyedWriteKind, string>> = {
	payment: "A new run gets new Derived keys and pays again; only n8n's Retry reuses them.",
	returnDetails: "A new run gets new Derived keys and sets the return details again; only n8n's Retry reuses them.",
};

const keyFieldsAfterMode: INodeProperties[] = [
	{
		displayName: 'Allow Derived Keys in Editor and Sub-Workflow Runs',
		name: 'allowDerivedInNewRuns',
		type: 'boolean',
		validateType: 'boolean',
		default: false,
		description:
			"Whether to send Derived keys with a Production credential (a localhost Base URL included) from a run a person repeats by hand: the editor, a sub-workflow called by a run from the editor or a Schedule Trigger, n8n execute, a chat, an evaluation. Off: such an item fails before anything is sent, because running it again (the natural next step there) would pay again; use a Business Key instead. It never allows them in an AI agent's tool call, a webhook call, a trigger's event other than a Schedule Trigger's, or a sub-workflow called by one of these (each can come again by itself): those need a Business Key.",
		displayOptions: { show: { idempotencyKeyMode: ['derived'] } },
	},
	{
		displayName: 'Business Key',
		name: 'idempotencyKey',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. {{ $json.invoiceId }}',
		description:
			'Map the field that names this payment (invoice number, payout reference): 1-255 characters, unique for each intended write. Sending the same key again returns the original result instead of acting twice.',
		displayOptions: { show: { idempotencyKeyMode: ['custom'] } },
	},
];

/** "Idempotency Key": a Business Key (the default) or a Derived key (idempotencyKey.ts), then the notice and their fields. */
export function idempotencyFieldsFor(kind: KeyedWriteKind): INodeProperties[] {
	const notice = DERIVED_NOTICES[kind];
	return [
		{
			displayName: 'Idempotency Key',
			name: 'idempotencyKeyMode',
			type: 'options',
			default: 'custom',
			options: [
				{
					name: 'Business Key',
					value: 'custom',
					description: 'Your own key per intended write (e.g. the invoice number): safe whenever and however the workflow runs again',
				},
				{
					name: 'Derived',
					value: 'derived',
					description: `New keys in every new run: a new run ${kind === 'payment' ? 'pays' : 'writes'} again (only n8n's Retry is safe)`,
				},
			],
			description:
				'How the key that stops this write from happening twice is chosen. Choose Business Key and map a value that names each write (an invoice number for a payment): running the workflow again then returns what the first run made instead of writing again. Derived keys are new in every new run: only n8n\'s Retry of the same execution reuses them. Details: <a href="https://github.com/clearinghouse-nodes/n8n-nodes-clearinghouse#paying-safely-with-idempotency-keys">the README</a>.',
		},
		...(notice
			? [
					{
						displayName: notice,
						name: 'derivedKeyNotice',
						type: 'notice',
						default: '',
						displayOptions: { show: { idempotencyKeyMode: ['derived'] } },
					} as INodeProperties,
				]
			: []),
		...keyFieldsAfterMode,
	];
}
