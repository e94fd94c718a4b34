/** Payment Order → Create: its fields (the panel), and the description the router shows them by. */
import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { dryRunOption } from '../../dryRun';
import {
	amountField,
	assetField,
	chainField,
	DYNAMIC_OPTIONS_HINT,
	idempotencyFieldsFor,
	optionsCollection,
	senderLocator,
	subaccountWriteOption,
} from '../../fields';
import { spendLimitsField } from './spendLimits';
import { CREATE_PAYMENT_ORDER_TOOL_DESCRIPTION, toolDescriptionField } from '../../toolDescriptions';
import { DEFAULT_REUSE_WINDOW_HOURS } from '../foundOrder';
import { DEFAULT_KEY_FIELD, FIELD_ALIASES, KEY_ALIASES, OPTIONAL_INPUT_FIELDS, REQUIRED_INPUT_FIELDS } from '../inputItem';

/** Under the Business Key: the one trap of keys in scheduled workflows. */
const RECURRING_HINT =
	"Paying the same payee every week or month? Put the period in the key, e.g. {{ $json.employeeId }}-{{ $now.toFormat('yyyy-MM') }}: a key used in an earlier period finds that period's order, pays nothing and fails the item.";

/** Quote ID, in its two places. */
const quoteIdField = {
	displayName: 'Quote ID',
	name: 'quoteId',
	type: 'string',
	default: '',
	placeholder: 'e.g. 4b1e2c3d-7a6f-4d18-b2c9-5e0f1a2b3c4d',
} satisfies INodeProperties;

const properties: INodeProperties[] = [
	{
		displayName: 'Settlement Mode',
		name: 'mode',
		type: 'options',
		default: 'standard',
		options: [
			{
				name: 'Standard',
				value: 'standard',
				description: 'Netted in the next settlement window at a fixed fee; needs an expiry',
			},
			{
				name: 'Instant',
				value: 'instant',
				description: 'Delivered from prefunded liquidity at a per-transaction fee; needs a quote, the service sets the funding window',
			},
		],
		description: 'How the order settles',
	},
	{
		displayName: 'Order Fields',
		name: 'dataMode',
		type: 'options',
		noDataExpression: true,
		default: 'defineBelow',
		options: [
			{
				name: 'Define Below',
				value: 'defineBelow',
				description: 'Set each field below, as a fixed value or an expression',
			},
			{
				name: 'Map Automatically',
				value: 'autoMapInputData',
				description: "Read each field from the input item's field of the same name: no expression per field, the fastest way to pay a batch",
			},
		],
		description: 'Where the sender, recipient, chain, asset, amount and memo of each order come from',
	},
	{
		displayName: `Read from each input item's columns (any case or spacing): ${[...REQUIRED_INPUT_FIELDS, ...OPTIONAL_INPUT_FIELDS]
			.map((field) => FIELD_ALIASES[field].join(' / '))
			.join(
				'; ',
			)} (memo optional; sender, chain and asset can also be given once below for rows without them); with Idempotency Key → Business Key, the column named in Business Key Field (left at "${DEFAULT_KEY_FIELD}": ${KEY_ALIASES.join(' / ')}). An item that lacks a required column, or has two for one field, fails before anything is sent.`,
		name: 'autoMapNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { dataMode: ['autoMapInputData'] } },
	},
	senderLocator({
		displayName: 'Sender User ID for Rows Without One',
		name: 'senderForAllRows',
		description:
			'The user who funds the orders of rows that have no sender column: picked by label from the list, or by ID (from Create or Update User); the ID is sent, never the label. A row with its own sender keeps it.',
		displayOptions: { show: { dataMode: ['autoMapInputData'] } },
	}),
	// A payee table rarely has a chain or asset column: given once here, as the sender is.
	chainField({
		displayName: 'Default Chain Name or ID',
		name: 'chainForAllRows',
		required: false,
		description: `Chain of the orders of rows that have no chain column (${FIELD_ALIASES.toChain.join(', ')}); a row with its own chain keeps it. ${DYNAMIC_OPTIONS_HINT}.`,
		displayOptions: { show: { dataMode: ['autoMapInputData'] } },
	}),
	assetField(
		{
			displayName: 'Default Asset Name or ID',
			name: 'assetForAllRows',
			required: false,
			description: `Asset of the orders of rows that have no asset column (${FIELD_ALIASES.asset.join(', ')}); a row with its own asset keeps it. ${DYNAMIC_OPTIONS_HINT}.`,
			displayOptions: { show: { dataMode: ['autoMapInputData'] } },
		},
		'chainForAllRows',
	),
	...definedBelow([
		senderLocator({
			displayName: 'Sender User ID',
			name: 'fromUserId',
			required: true,
			description: 'The user who funds the order: picked by label from the list, or by ID (from Create or Update User); the ID is sent, never the label',
		}),
		{
			displayName: 'Recipient Address',
			name: 'toAddress',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. 0x52908400098527886e0f7030069857d2e4169ee7',
			description: 'A registered and activated wallet of the account that receives the payment',
		},
		chainField(),
		assetField(),
		amountField,
	]),
	// Required on the panel for Instant, optional in Additional Fields otherwise. `hide`, not `show`: with the
	// mode from an expression n8n shows every `show` field, and the required one must go (execute() checks each item).
	{
		...quoteIdField,
		required: true,
		description: 'Quote from Create Quote (Quote → Create): the instant order settles against it',
		displayOptions: { hide: { mode: [{ _cnd: { not: 'instant' } }] } },
	},
	...standardOnly([
		{
			displayName: 'Expires',
			name: 'expiry',
			type: 'options',
			default: 'inMinutes',
			options: [
				{
					name: 'In a Number of Minutes',
					value: 'inMinutes',
					description: 'Counted from the start of the execution',
				},
				{
					name: 'At a Date and Time',
					value: 'at',
					description: 'A fixed future date and time',
				},
			],
			description: 'When the order stops accepting funds. Standard orders only: the service sets the funding window of an instant order.',
		},
		{
			displayName: 'Expires In (Minutes)',
			name: 'expiresInMinutes',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 60,
			description:
				"Minutes until the order stops accepting funds, counted from the start of the execution (n8n's retries of it keep that start, so a retry sends the same request)",
			displayOptions: { show: { expiry: ['inMinutes'] } },
		},
		{
			displayName: 'Expires At',
			name: 'expiresAt',
			type: 'dateTime',
			default: '',
			description: 'Future date and time when the order stops accepting funds',
			displayOptions: { show: { expiry: ['at'] } },
		},
	]),
	...definedBelow([
		{
			displayName: 'Memo',
			name: 'memo',
			type: 'string',
			default: '',
			placeholder: 'e.g. Invoice 2026-0042',
			description: 'Free text stored on the order (sent as an empty text when left empty)',
		},
	]),
	// With Map Automatically the business key comes from an input field too, not from an expression.
	...idempotencyFieldsFor('payment').map((field) => (field.name === 'idempotencyKey' ? definedBelow([{ ...field, hint: RECURRING_HINT }])[0] : field)),
	{
		displayName: 'Business Key Field',
		name: 'businessKeyField',
		type: 'string',
		default: DEFAULT_KEY_FIELD,
		required: true,
		placeholder: 'e.g. invoiceNumber',
		description: `Name of the input field that holds each order's business key (1-255 characters, unique for each intended payment). Left at "${DEFAULT_KEY_FIELD}", a row without that field takes its key from its ${KEY_ALIASES.slice(1).join(' or ')} column. An item without a key fails before anything is sent, and so do rows of one run that share a key for different payments.`,
		hint: RECURRING_HINT,
		displayOptions: { show: { dataMode: ['autoMapInputData'], idempotencyKeyMode: ['custom'] } },
	},
	...standardOnly([
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: [
				{
					...subaccountWriteOption,
					description: 'Create the order for a direct child subaccount (UUID). Standard orders only: for an instant order give it to Create Quote instead.',
				},
				{
					...quoteIdField,
					description:
						"A Standard Quote from Create Quote: the order then takes the quote's rate and window and must match its terms. With Settlement Mode from an expression, an instant item's quote.",
				},
			],
		},
	]),
	spendLimitsField,
	toolDescriptionField(CREATE_PAYMENT_ORDER_TOOL_DESCRIPTION),
	optionsCollection([
		dryRunOption,
		{
			displayName: 'Reuse Orders Made Within (Hours)',
			name: 'reuseWindowHours',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 2160 },
			default: DEFAULT_REUSE_WINDOW_HOURS,
			description:
				"How long before this execution began an order found by its Business Key may have been made and still count as this item's payment (a re-run after a fix, a crash or an outage finishing the same batch). An older one fails the item: its key was most likely used by an earlier period (put the period in the key). 0: only orders made by this execution and its retries.",
		},
		{
			displayName: 'Check Account Limits First',
			name: 'checkLimits',
			type: 'boolean',
			default: false,
			description:
				'Whether to read the account limits before creating the order and fail the item with a clear message when the amount would exceed what remains (costs one extra request per item; the service enforces the limits either way)',
		},
	]),
];

/** Fields the service refuses or ignores for instant orders: hidden in Instant mode. */
function standardOnly(fields: INodeProperties[]): INodeProperties[] {
	return fields.map((field) => ({
		...field,
		displayOptions: { ...field.displayOptions, hide: { ...field.displayOptions?.hide, mode: ['instant'] } },
	}));
}

/** Fields shown only with Order Fields → Define Below. */
function definedBelow(fields: INodeProperties[]): INodeProperties[] {
	return fields.map((field) => ({
		...field,
		displayOptions: { ...field.displayOptions, show: { ...field.displayOptions?.show, dataMode: ['defineBelow'] } },
	}));
}

export const description = updateDisplayOptions({ show: { resource: ['paymentOrder'], operation: ['create'] } }, properties);
