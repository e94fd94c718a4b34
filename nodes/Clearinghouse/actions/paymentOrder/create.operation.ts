import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { fromPips, toPips, type UsdAmount } from '../../../shared/amounts';
import { isDryRun, noteFinding } from '../dryRun';
import { createdByThisRequest, createdInLineage, type Lineage, relativeExpiry, validateIdempotencyKey } from '../../../shared/idempotency';
import { apiRequest, apiRequestWithStatus } from '../../../shared/transport';
import { depositAddressEntries } from '../depositAddress/getMany.operation';
import { orderByKeyInRun } from './findOrders';
import { clockSkew, DEFAULT_REUSE_WINDOW_HOURS, fundsSeen, inWords, madeBefore, orderState } from './foundOrder';
import { DEFINED_BELOW_LABELS, differingFields, MAPPED_LABELS, type UserField } from './sameOrder';
import {
	businessKeyColumn,
	DEFAULT_KEY_FIELD,
	FIELD_ALIASES,
	inputValue,
	KEY_ALIASES,
	keyedRow,
	type KeyedRow,
	OPTIONAL_INPUT_FIELDS,
	orderFieldsFromItem,
	REQUIRED_INPUT_FIELDS,
	rowsSharingKey,
} from './inputItem';
import { checkAccountLimits } from './accountLimits';
import { guardOrder } from './createGuards';
import { dryRunOption } from '../dryRun';
import { countSent, spendLimitsField } from '../spendLimits';
import { CREATE_PAYMENT_ORDER_TOOL_DESCRIPTION, toolDescriptionField } from '../toolDescriptions';
import { amountField, assetField, chainField, idempotencyFieldsFor, optionsCollection, subaccountWriteOption } from '../fields';
import { operationError, itemParameter, optionalText, requiredText, subaccountQuery, switchParameter } from '../parameters';
import { orderAmount } from './orderAmount';
import { keyedWrite, keyMode, sendKeyed } from '../keyedWrite';

/** Under the Business Key: the one trap of keys in scheduled workflows. */
const RECURRING_HINT =
	"Paying the same payee every week or month? Put the period in the key, e.g. {{ $json.employeeId }}-{{ $now.toFormat('yyyy-MM') }}: a key used in an earlier period finds that period's order, pays nothing and fails the item.";

/** Quote ID, in its three places (required for Instant; optional on the panel in versions 1-2, in Additional Fields from 2.1). */
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
			)} (memo optional); with Idempotency Key → Business Key, the column named in Business Key Field (left at "${DEFAULT_KEY_FIELD}": ${KEY_ALIASES.join(' / ')}). An item that lacks a required column, or has two for one field, fails before anything is sent.`,
		name: 'autoMapNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { dataMode: ['autoMapInputData'] } },
	},
	{
		displayName: 'Sender User ID for Rows Without One',
		name: 'senderForAllRows',
		type: 'string',
		default: '',
		placeholder: 'e.g. 80146f91-be0e-47f5-ade4-12f4d64b2c88',
		description:
			'System ID of the user who funds the orders of rows that have no sender column (the ID from Create or Update User, never the label). A row with its own sender keeps it.',
		displayOptions: { show: { dataMode: ['autoMapInputData'] } },
	},
	...definedBelow([
		{
			displayName: 'Sender User ID',
			name: 'fromUserId',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. 80146f91-be0e-47f5-ade4-12f4d64b2c88',
			description: 'System ID of the user who funds the order (the ID from Create or Update User, never the label)',
		},
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
	// Two panels for one parameter: required when Settlement Mode is Instant, optional otherwise.
	// When the mode is an expression n8n shows any `show` field, so both use `hide`: the optional
	// one and the standard-only fields stay, the required one goes. execute() checks each item.
	// From version 2.1 the optional one is in Additional Fields (a standard order rarely has a quote);
	// versions 1 and 2 keep it here, so that n8n keeps the value their saved workflows hold.
	{
		...quoteIdField,
		required: true,
		description: 'Quote from Create Quote (Quote → Create): the instant order settles against it',
		displayOptions: { hide: { mode: [{ _cnd: { not: 'instant' } }] } },
	},
	...standardOnly([
		{
			...quoteIdField,
			description:
				"Optional Standard Quote from Create Quote: the order then takes the quote's rate and window and must match its terms. Required for instant orders.",
			displayOptions: { show: { '@version': [1, 2] } },
		},
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
					displayOptions: { show: { '@version': [{ _cnd: { gte: 2.1 } }] } },
				},
			],
		},
	]),
	// Spend limits (actions/spendLimits.ts): set by the workflow's owner, never by an AI agent.
	spendLimitsField,
	// Shown only when the node is an AI agent's tool: what the agent reads about Create.
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

/** Fields that do not apply to instant orders (the service refuses or ignores them): hidden in Instant mode. */
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

// Spend limits over the whole batch, run by the router before any item starts.
export { preflight } from '../spendLimits';

export const description = updateDisplayOptions({ show: { resource: ['paymentOrder'], operation: ['create'] } }, properties);

/**
 * POST /payment, keyed with `idempotencyKey`: the transport may repeat it (connection error, 429,
 * 500, 503) and the service answers a repeat with the order it already made.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const mode = this.getNodeParameter('mode', itemIndex, 'standard') as string;
	let body: IDataObject;
	let amount: UsdAmount;
	let businessKey: { value: unknown; label: string } | undefined;
	if (this.getNodeParameter('dataMode', itemIndex, 'defineBelow') === 'autoMapInputData') {
		const keyField = keyMode(this, itemIndex) === 'custom' ? String(this.getNodeParameter('businessKeyField', itemIndex, DEFAULT_KEY_FIELD) ?? '') : undefined;
		let fields;
		try {
			const sender = String(this.getNodeParameter('senderForAllRows', itemIndex, '') ?? '');
			fields = orderFieldsFromItem(this.getInputData()[itemIndex]?.json ?? {}, keyField, sender);
		} catch (error) {
			// orderFieldsFromItem throws only InputFieldError, whose message names the field.
			throw operationError(
				this,
				(error as Error).message,
				itemIndex,
				'Order Fields is set to Map Automatically: each input item needs these columns (the notice above lists the names accepted; a sender can also be given once in Sender User ID for Rows Without One). Nothing was sent for this item.',
			);
		}
		amount = orderAmount(this, itemIndex, true);
		body = {
			fromUserId: fields.fromUserId,
			toAddress: fields.toAddress,
			toChain: fields.toChain,
			asset: fields.asset,
			amountUsd: amount.value,
			memo: fields.memo,
			mode,
		};
		if (keyField !== undefined) {
			businessKey = { value: fields.businessKey, label: `Input field "${fields.businessKeyColumn}"` };
			refuseSharedKey(this, itemIndex);
		}
	} else {
		amount = orderAmount(this, itemIndex, false);
		body = {
			fromUserId: requiredText(this, 'fromUserId', itemIndex, 'Sender User ID'),
			toAddress: requiredText(this, 'toAddress', itemIndex, 'Recipient Address'),
			toChain: requiredText(this, 'toChain', itemIndex, 'Chain'),
			asset: requiredText(this, 'asset', itemIndex, 'Asset'),
			amountUsd: amount.value,
			memo: String(itemParameter(this, 'memo', itemIndex, '') ?? ''),
			mode,
		};
	}
	const additional = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	// Nothing is sent before the key is known: a Derived key that cannot be anchored fails here.
	const { key, lineage, newKey, mode: keyKind } = await keyedWrite(this, itemIndex, 'POST /payment', businessKey);
	const labels = this.getNodeParameter('dataMode', itemIndex, 'defineBelow') === 'autoMapInputData' ? MAPPED_LABELS : DEFINED_BELOW_LABELS;

	const expiry = this.getNodeParameter('expiry', itemIndex, 'inMinutes') as string;
	// The panel's Quote ID (instant; standard in versions 1 and 2), else Additional Fields → Quote ID (2.1).
	const quoteId = optionalText(itemParameter(this, 'quoteId', itemIndex, '')) ?? optionalText(additional.quoteId);
	const subaccountId = optionalText(additional.subaccountId);

	if (mode === 'instant') {
		if (!quoteId)
			throw operationError(
				this,
				'Quote ID is required for instant orders',
				itemIndex,
				'Create a quote first with Quote → Create and map its quoteId into Quote ID (with Settlement Mode from an expression: Additional Fields → Quote ID).',
			);
		if (expiry === 'at') {
			throw operationError(
				this,
				'Expires At is not accepted for instant orders: the service sets their funding window',
				itemIndex,
				'Set Expires to "In a Number of Minutes" (ignored for instant orders) or use a standard order.',
			);
		}
		if (subaccountId) {
			throw operationError(
				this,
				'Subaccount ID is not accepted for instant orders',
				itemIndex,
				'Give the subaccount to Create Quote instead: an instant order takes the account of its quote.',
			);
		}
		body.quoteId = quoteId;
	} else if (mode === 'standard') {
		if (expiry === 'at') {
			const text = optionalText(itemParameter(this, 'expiresAt', itemIndex, ''));
			const at = text === undefined ? NaN : Date.parse(text);
			if (Number.isNaN(at)) throw operationError(this, 'Expires At is required for standard orders (a future date and time)', itemIndex);
			if (at <= Date.now()) throw operationError(this, `Expires At must be in the future (got ${new Date(at).toISOString()})`, itemIndex);
			body.expiresAt = new Date(at).toISOString();
		} else {
			const minutes = Number(this.getNodeParameter('expiresInMinutes', itemIndex, 60));
			if (!Number.isFinite(minutes) || minutes < 1) {
				throw operationError(this, 'Expires In (Minutes) must be at least 1', itemIndex);
			}
			body.expiresAt = relativeExpiry(lineage?.anchorMs, minutes, Date.now());
		}
		if (quoteId) body.quoteId = quoteId;
		if (subaccountId) body.subaccountId = subaccountId;
	} else {
		throw operationError(this, `Settlement Mode must be "standard" or "instant" (got "${mode}")`, itemIndex);
	}

	// Spend limits (and a dry run's read-only checks) before any request for this item.
	await guardOrder(this, itemIndex, body, amount);

	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const reuseWindowHours = reuseWindow(this, options, itemIndex);
	if (switchParameter(this, 'options.checkLimits', itemIndex, false, 'Check Account Limits First', 'guard')) {
		await checkAccountLimits.call(this, itemIndex, amount, subaccountQuery(body));
	}
	const found: FoundCheck = { key, keyKind, lineage, reuseWindowHours };
	if (keyKind === 'custom' && isDryRun(this)) {
		// A dry run says which items already have an order, and what a real run would do with it.
		const existing = await orderByKeyInRun.call(this, {
			key,
			runKeys: () => runBusinessKeys(this),
			subaccountId: optionalText(body.subaccountId),
			itemIndex,
			alsoRecent: false,
		});
		if (existing) noteFinding(this, itemIndex, existingOrderFinding(existing.order, found, existing.skewMs));
	}

	// Retry On Fail: the same request as the first try of this item ($now and the like resolve anew).
	const sent = await sendKeyed(this, itemIndex, {
		key,
		record: 'payment order',
		method: 'POST',
		path: '/payment',
		keyIn: 'body',
		body,
		// A refusal that names no field: the account's limits are one cause the node can check.
		limitsOnRefusal: (first) => ({ path: '/account/limits', qs: subaccountQuery(first.body) }),
		// Max Total per Run over what this run actually sends, not only the batch's amounts read before.
		beforeSend: (first) => countSent(this, itemIndex, first.body.amountUsd),
		// A Business Key met the service's 409: an earlier run made this order, perhaps with an expiry
		// counted from its own start. Look it up and answer with it when it is this payment.
		onKeyReused:
			keyKind === 'custom'
				? async ({ body: request }) => {
						const existing = await orderHoldingKey.call(this, itemIndex, key, request, labels);
						if (!existing) return undefined;
						checkFoundOrder(this, itemIndex, existing.order, found, existing.skewMs);
						const addresses = await addressesFor.call(this, itemIndex, existing.order, request.subaccountId);
						return replayedOrder(existing.order, addresses, key, lineage, 'conflict', request.expiresAt);
					}
				: undefined,
	});
	if (sent.reused !== undefined) return sent.reused;
	const { response, startedMs } = sent;
	const request = sent.sent.body;
	const first = sent.firstTry;
	const order = (response.paymentOrder ?? {}) as IDataObject;
	const byThisRequest = createdByThisRequest({
		firstPossibleUse: newKey && first,
		createdAt: order.createdAt,
		requestStartedMs: startedMs,
	});
	if (byThisRequest) return flatOrder(response, true, key);
	// The service replayed its first answer, a snapshot: show the order as it is now.
	const read = await currentOrder.call(this, itemIndex, String(response.paymentOrderId ?? order.id ?? ''), request.subaccountId);
	const current = read?.order ?? order;
	checkFoundOrder(this, itemIndex, current, found, read?.skewMs ?? 0);
	const addresses =
		Array.isArray(response.depositAddresses) && response.depositAddresses.length > 0
			? {}
			: await addressesFor.call(this, itemIndex, current, request.subaccountId);
	return replayedOrder(current, { ...response, ...addresses }, key, lineage, 'replay', undefined, keyKind === 'derived');
}

/**
 * The orders the rows that succeeded before a failed row made or found, for the run's error: they
 * exist, and how to finish the batch without paying them again (the router's `succeededRows`).
 */
export function succeededRows(this: IExecuteFunctions, records: IDataObject[]): { made: string; detail: string } {
	const made = records.filter((r) => r.created === true).length;
	const found = records.length - made;
	const rerun =
		runKeyMode(this) === 'derived'
			? 'Do not run the whole batch anew with Derived keys: that pays them again. Fix the cause, then Retry this execution from the executions list: only the missing orders are made.'
			: 'Fix the cause, then run again with the same Business Keys (or Retry this execution from the executions list): only the missing orders are made.';
	return {
		made: `${records.length} payment order${records.length === 1 ? '' : 's'} made or found`,
		detail:
			`${made} payment order${made === 1 ? '' : 's'} made by this run and ${found} found from an earlier run (same key). ` +
			'They exist in the service (the sandbox when the Base URL points at it); Payment Order → Find by Keys (with the same keys) or Get Many shows them. ' +
			rerun,
	};
}

/** Idempotency Key of the run (item 0): the advice about Derived keys applies only with them. */
function runKeyMode(ctx: IExecuteFunctions): string | undefined {
	try {
		return keyMode(ctx, 0);
	} catch {
		return undefined;
	}
}

/** The row's Business Key (with Idempotency Key → Business Key), else its memo: how a person knows the row in an error. */
export function rowReference(this: IExecuteFunctions, itemIndex: number): string | undefined {
	const mapped = this.getNodeParameter('dataMode', itemIndex, 'defineBelow') === 'autoMapInputData';
	const json = this.getInputData()[itemIndex]?.json ?? {};
	const candidates: unknown[] = [];
	if (keyMode(this, itemIndex) === 'custom') {
		candidates.push(
			mapped ? mappedKey(json, this.getNodeParameter('businessKeyField', itemIndex, DEFAULT_KEY_FIELD)) : itemParameter(this, 'idempotencyKey', itemIndex, ''),
		);
	}
	candidates.push(mapped ? inputValueOrNone(json, 'memo') : itemParameter(this, 'memo', itemIndex, ''));
	const found = candidates.find((value) => (typeof value === 'string' && value.trim() !== '') || typeof value === 'number');
	if (found === undefined) return undefined;
	const text = String(found).trim();
	return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** A mapped row's business key as found (through its column), undefined when it has none. */
function mappedKey(json: IDataObject, keyField: unknown): unknown {
	try {
		return json[businessKeyColumn(json, String(keyField ?? ''))];
	} catch {
		return undefined;
	}
}

/** Per run: the mapped rows with a Business Key, grouped by key (read once, for refuseSharedKey). */
const keyedRuns = new WeakMap<IExecuteFunctions, { byKey: Map<string, KeyedRow[]>; byIndex: Map<number, KeyedRow> }>();

/**
 * Map Automatically with a Business Key: a row whose key another row of this run carries fails before
 * anything is sent (each of them does). The service pays a key once: for another payment it would pay
 * the row that arrives first and refuse the other (which one is chance); for the same payment listed
 * twice both rows would show one order as made, and the person would count two.
 */
function refuseSharedKey(ctx: IExecuteFunctions, itemIndex: number): void {
	let run = keyedRuns.get(ctx);
	if (!run) {
		run = { byKey: new Map(), byIndex: new Map() };
		const items = ctx.getInputData();
		for (let index = 0; index < items.length; index++) {
			let row: KeyedRow | undefined;
			try {
				if (keyMode(ctx, index) !== 'custom' || ctx.getNodeParameter('dataMode', index, 'defineBelow') !== 'autoMapInputData') continue;
				const field = String(ctx.getNodeParameter('businessKeyField', index, DEFAULT_KEY_FIELD) ?? '');
				row = keyedRow(index, items[index].json, field, String(ctx.getNodeParameter('senderForAllRows', index, '') ?? ''));
			} catch {
				// that item fails on its own, with its own message
			}
			if (!row) continue;
			run.byIndex.set(index, row);
			run.byKey.set(row.key, [...(run.byKey.get(row.key) ?? []), row]);
		}
		keyedRuns.set(ctx, run);
	}
	const mine = run.byIndex.get(itemIndex);
	if (!mine) return;
	const others = rowsSharingKey(run.byKey.get(mine.key) ?? [], mine);
	if (others.length === 0) return;
	const rows = others.map((o) => `row ${o.index + 1}`).join(', ');
	const differing = others.find((o) => o.differing.length > 0)?.differing;
	throw operationError(
		ctx,
		`Nothing was sent for this row: its Business Key "${mine.key}" (column "${mine.column}") is also the key of ${rows} of this run, ` +
			(differing ? `for another payment (${differing.join('; ')})` : 'for the same payment (a row listed twice?)'),
		itemIndex,
		'One Business Key names one payment, and the service pays a key once. If these rows are two payments, give each its own key (a column with a unique reference per row, named in Business Key Field); if they are one payment, remove the extra row. Nothing was sent for any of these rows.',
	);
}

function inputValueOrNone(json: IDataObject, field: 'memo'): unknown {
	try {
		return inputValue(json, field);
	} catch {
		return undefined;
	}
}

/** What the found-order checks need of an item. */
interface FoundCheck {
	key: string;
	keyKind: 'custom' | 'derived';
	lineage?: Lineage;
	reuseWindowHours: number;
}

/** Options → Reuse Orders Made Within (Hours), checked before anything is sent (fail closed on a value it does not understand). */
function reuseWindow(ctx: IExecuteFunctions, options: IDataObject, itemIndex: number): number {
	const raw = options.reuseWindowHours ?? DEFAULT_REUSE_WINDOW_HOURS;
	const hours = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
	if (!Number.isFinite(hours) || hours < 0) {
		throw operationError(
			ctx,
			`Reuse Orders Made Within (Hours) must be a number of hours, 0 or more (got ${JSON.stringify(raw)})`,
			itemIndex,
			'Nothing was sent for this item.',
		);
	}
	return hours;
}

/**
 * Why an order found by this item's key is not its payment, or undefined when it is: a dead order
 * (the payee is unpaid: only a new key pays), one in a status this node does not know, or, for a
 * Business Key, one made longer before this execution began than the reuse window (an earlier
 * period's key).
 */
function foundOrderProblem(order: IDataObject, found: FoundCheck, skewMs: number): { message: string; description: string } | undefined {
	const { key } = found;
	const id = String(order.id ?? order.paymentOrderId ?? '');
	const status = String(order.status ?? '(none)');
	const made = `made ${String(order.createdAt ?? 'at an unknown time')}`;
	const keyName = found.keyKind === 'custom' ? `Business Key "${key}"` : `idempotency key ${key}`;
	const { state, why } = orderState(order, Date.now() + skewMs);
	if (state === 'dead') {
		return {
			message: `Payee unpaid: this item's ${keyName} belongs to payment order ${id} (${made}), which can no longer pay: ${why}`,
			description: `Nothing new was created, and this key will only ever return that order. Only a new key pays: ${found.keyKind === 'custom' ? "give this payment a new Business Key (e.g. add the period or a suffix: {{ $json.employeeId }}-{{ $now.toFormat('yyyy-MM') }}-2)" : 'run the workflow anew for this item'}.`,
		};
	}
	if (state === 'unknown') {
		return {
			message: `This item's ${keyName} belongs to payment order ${id} (${made}), whose status ${status} this node does not know, so it cannot say whether the payee is paid`,
			description: 'Nothing new was created. Check the order (Payment Order → Get) before paying again; a new Business Key pays anew.',
		};
	}
	if (found.keyKind !== 'custom') return undefined;
	// This execution's start on the service's clock (n8n's retries of it keep it).
	const before = madeBefore(order, (found.lineage?.anchorMs ?? Date.now()) + skewMs);
	const windowMs = found.reuseWindowHours * 3_600_000;
	if (before === undefined || before > windowMs) {
		const when = before === undefined ? 'at a time the service did not give' : `${inWords(before)} before this execution began`;
		return {
			message: `Business Key "${key}" was already used ${when}, by payment order ${id} (${made}, status ${status}): nothing new was paid for this item`,
			description:
				`A key names one payment: running it again returns that order. If this is a new period's payment, put the period or the invoice number in the key, e.g. {{ $json.employeeId }}-{{ $now.toFormat('yyyy-MM') }}. ` +
				`If this run finishes that same batch (a re-run after a fix, a crash or an outage), set Options → Reuse Orders Made Within (Hours) above ${Math.ceil((before ?? 0) / 3_600_000)} (now ${found.reuseWindowHours}).`,
		};
	}
	return undefined;
}

/** Fails the item when the order found by its key is not its payment (see foundOrderProblem). */
function checkFoundOrder(ctx: IExecuteFunctions, itemIndex: number, order: IDataObject, found: FoundCheck, skewMs: number): void {
	const problem = foundOrderProblem(order, found, skewMs);
	if (problem) throw operationError(ctx, problem.message, itemIndex, problem.description);
}

/** A dry run's line about the order that already holds the item's key. */
function existingOrderFinding(order: IDataObject, found: FoundCheck, skewMs: number): string {
	const said = `Business Key "${found.key}" already belongs to payment order ${String(order.id ?? '')} (made ${String(order.createdAt ?? '?')}, status ${String(order.status ?? '?')})`;
	const problem = foundOrderProblem(order, found, skewMs);
	return problem
		? `${said}: a real run fails this item. ${problem.message}.`
		: `${said}: a real run returns that order (created: false) if its payment values are the same, and pays nothing new.`;
}

/**
 * The Business Keys of every item of this run that has a readable one (the mapped input field, or
 * the Business Key parameter), for the one listing per run that answers the service's 409s.
 */
function runBusinessKeys(ctx: IExecuteFunctions): string[] {
	const keys: string[] = [];
	const items = ctx.getInputData();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			if (keyMode(ctx, itemIndex) !== 'custom') continue;
			const mapped = ctx.getNodeParameter('dataMode', itemIndex, 'defineBelow') === 'autoMapInputData';
			const json = items[itemIndex].json;
			keys.push(
				validateIdempotencyKey(
					mapped
						? json[businessKeyColumn(json, String(ctx.getNodeParameter('businessKeyField', itemIndex, DEFAULT_KEY_FIELD) ?? ''))]
						: itemParameter(ctx, 'idempotencyKey', itemIndex, ''),
				),
			);
		} catch {
			// that item fails on its own, with its own message
		}
	}
	return keys;
}

/** The account's deposit addresses, read once per run and scope (GET /deposit-addresses, a read). */
const depositAddressReads = new WeakMap<IExecuteFunctions, Map<string, Promise<IDataObject[]>>>();

/**
 * Where to fund a found order that still awaits funds: the account's deposit addresses (the spec:
 * account-scoped, independent of any order), since a 409 or a replayed snapshot may carry none.
 * Nothing for an order that no longer awaits funds.
 */
async function addressesFor(this: IExecuteFunctions, itemIndex: number, order: IDataObject, subaccountId: unknown): Promise<IDataObject> {
	if (order.status !== 'AWAITING_FUNDS') return {};
	const scope = optionalText(subaccountId);
	const byScope = depositAddressReads.get(this) ?? new Map<string, Promise<IDataObject[]>>();
	depositAddressReads.set(this, byScope);
	let read = byScope.get(scope ?? '');
	if (!read) {
		read = apiRequest
			.call(this, { method: 'GET', path: '/deposit-addresses', qs: scope ? { subaccountId: scope } : undefined, itemIndex })
			.then((body) => depositAddressEntries(body));
		byScope.set(scope ?? '', read);
		read.catch(() => byScope.delete(scope ?? ''));
	}
	return { depositAddresses: await read };
}

/**
 * The order a 409 says holds `key`, when it is the payment `sent` asks for (only computed values
 * such as the expiry differ); throws naming each differing field when it is another payment.
 * Undefined when it is not found: the caller reports the 409 as it is.
 */
async function orderHoldingKey(
	this: IExecuteFunctions,
	itemIndex: number,
	key: string,
	sent: IDataObject,
	labels: Record<UserField, string>,
): Promise<{ order: IDataObject; skewMs: number } | undefined> {
	const found = await orderByKeyInRun.call(this, { key, runKeys: () => runBusinessKeys(this), subaccountId: optionalText(sent.subaccountId), itemIndex });
	if (!found) return undefined;
	const { order } = found;
	const differences = differingFields(order, sent, labels);
	if (differences.length > 0) {
		const list = differences.map((d) => `${d.label} is ${d.order} on the order, this run sends ${d.sent}`).join('; ');
		throw operationError(
			this,
			`This item's Business Key "${key}" already belongs to payment order ${String(order.id)} with other values: ${list}`,
			itemIndex,
			`Nothing new was created. If this item is that payment, set the value back (Payment Order → Get shows the order). If it is a different payment, give it a NEW Business Key: running it anew with a new key pays again.`,
		);
	}
	return found;
}

/** GET /payment-orders/{id}: the order now, without its returns block; undefined without an id. A failed read fails the item (the order exists; the same key finds it again). */
async function currentOrder(
	this: IExecuteFunctions,
	itemIndex: number,
	id: string,
	subaccountId: unknown,
): Promise<{ order: IDataObject; skewMs: number } | undefined> {
	if (id === '') return undefined;
	const scope = optionalText(subaccountId);
	const answer = await apiRequestWithStatus.call(this, {
		method: 'GET',
		path: `/payment-orders/${encodeURIComponent(id)}`,
		qs: scope ? { subaccountId: scope } : undefined,
		itemIndex,
	});
	const { returns: _returns, ...order } = (answer.body ?? {}) as IDataObject;
	void _returns;
	return { order, skewMs: clockSkew(answer.date, Date.now()) };
}

/**
 * An order the service already had (a replayed answer, or found after a 409), as it is now:
 * `created` by the lineage rule, `replayed: true` and a note saying why.
 */
function replayedOrder(
	order: IDataObject,
	response: IDataObject,
	key: string,
	lineage: Lineage | undefined,
	how: 'replay' | 'conflict',
	askedExpiresAt?: unknown,
	derived = false,
): IDataObject {
	const created = createdInLineage({ derived, byThisRequest: false, createdAt: order.createdAt, lineageStartMs: lineage?.anchorMs });
	const why =
		how === 'conflict'
			? `An order with this Business Key already existed (made ${created ? 'earlier in this execution or a retry of it' : 'by an earlier run'}) with the same payment values, so nothing new was created; it is shown as it is now.` +
				(askedExpiresAt !== undefined && askedExpiresAt !== order.expiresAt
					? ` Its expiresAt (${String(order.expiresAt)}) is kept; this run asked ${String(askedExpiresAt)}.`
					: '')
			: `The service answered with the order it already had for this key (made ${created ? 'earlier in this execution or a retry of it' : 'by an earlier run'}), so nothing new was created; it is shown as it is now.`;
	return {
		...flatOrder({ ...response, paymentOrderId: order.id ?? response.paymentOrderId, paymentOrder: order }, created, key),
		replayed: true,
		replayNote: why,
	};
}

/**
 * The order flat, as Get returns it (`$json.status`, `$json.id`), beside what only Create knows:
 * `created`, the key, and where to pay. `paymentOrderId` is kept (the same value as `id`), and any
 * other top-level field of the answer passes through unchanged.
 */
export function flatOrder(response: IDataObject, created: boolean, key: string): IDataObject {
	const { paymentOrder, depositAddresses: list, paymentOrderId, ...other } = response;
	const order = (paymentOrder ?? {}) as IDataObject;
	const depositAddresses = Array.isArray(list) ? (list as IDataObject[]) : [];
	// Only an order that awaits funds may be funded: a replayed answer may be FUNDED or later by now.
	const awaiting = order.status === undefined || order.status === 'AWAITING_FUNDS';
	const seen = fundsSeen(order);
	return {
		created,
		paymentOrderId: paymentOrderId ?? order.id,
		// Fields only one of the answers has (create: underfundToleranceUsd; list: direction): every output has both.
		underfundToleranceUsd: null,
		direction: null,
		...other,
		...order,
		...(awaiting
			? withFundsSeen(payHere(order, depositAddresses), order, seen.fundsSeenUsd, seen.fundsSeen)
			: {
					depositAddress: null,
					depositAddressNote: `The order is ${String(order.status)}: it no longer awaits funds, so no deposit address is given. Do not fund it.`,
				}),
		depositAddresses: awaiting ? depositAddresses : [],
		...seen,
		replayed: false,
		// Every output has the same columns, created or found (n8n's table view shows no empty cells).
		replayNote: null,
		idempotencyKey: key,
	};
}

/**
 * An order found awaiting funds may already have some on the way (a person funded it after the
 * earlier run): the note says so, and how much is still missing, so the re-run never funds it twice.
 */
function withFundsSeen(
	pay: { depositAddress: string | null; depositAddressNote: string },
	order: IDataObject,
	seenUsd: string,
	seen: boolean,
): { depositAddress: string | null; depositAddressNote: string } {
	if (!seen) return pay;
	let missing = '';
	try {
		const left = toPips(order.amountUsd) - toPips(seenUsd);
		missing =
			left > 0n
				? ` ${fromPips(left).text} USD is still missing: send only that, once the transfers already seen are confirmed.`
				: ' That covers the amount: send nothing more.';
	} catch {
		missing = ' Check the order (Payment Order → Get) before sending more.';
	}
	return { ...pay, depositAddressNote: `Funds of ${seenUsd} USD for this order were already seen (see inboundTransfers).${missing} ${pay.depositAddressNote}` };
}

/**
 * The one deposit address to fund the order: the entry for the order's own asset on its own chain
 * (the sender pays what the recipient receives, on the same chain). The service accepts any
 * supported stablecoin on any chain; the full list stays in `depositAddresses` for that.
 */
export function payHere(order: IDataObject, depositAddresses: IDataObject[]): { depositAddress: string | null; depositAddressNote: string } {
	const chain = String(order.toChain ?? '');
	const asset = String(order.asset ?? '');
	const match = depositAddresses.find((entry) => entry.chain === chain && String(entry.symbol ?? '').toUpperCase() === asset.toUpperCase());
	if (match && typeof match.address === 'string' && match.address !== '') {
		return {
			depositAddress: match.address,
			depositAddressNote: `Send ${asset} on ${chain} (the order's asset and chain) from an activated wallet of the sender to this address, then submit the transaction hash (Payment Order → Submit Transactions). Any other supported stablecoin and chain also funds the order: see depositAddresses.`,
		};
	}
	return {
		depositAddress: null,
		depositAddressNote:
			depositAddresses.length === 0
				? 'The service returned no deposit address for this order.'
				: `None of the ${depositAddresses.length} deposit addresses is for ${asset} on ${chain}: fund the order through the depositAddresses entry for the chain and stablecoin the sender pays with.`,
	};
}
