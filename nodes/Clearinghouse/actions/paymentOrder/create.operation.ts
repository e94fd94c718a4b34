/**
 * Payment Order → Create: POST /payment, keyed with `idempotencyKey`. Safe to repeat: the transport
 * may repeat it (connection error, 429, 500, 503), a retry of the execution sends the same key and
 * request, and the service answers a repeat with the order it already made, never a second one.
 * The file holds the fields, then `execute` as its steps (read the order's fields, guard, send keyed,
 * present the order); how the order is shown is in createOutput.ts, what is read across the run's
 * rows (their fields once per run, a shared Business Key, the run's keys for a 409) in runKeys.ts.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { UsdAmount } from '../../../shared/amounts';
import { createdByThisRequest, type Lineage, relativeExpiry, validateIdempotencyKey } from '../../../shared/idempotency';
import { dryRunOption, isDryRun, noteFinding } from '../dryRun';
import { readOncePerItem } from '../readOnce';
import { amountField, assetField, chainField, DYNAMIC_OPTIONS_HINT, idempotencyFieldsFor, optionsCollection, subaccountWriteOption } from '../fields';
import { keyMode, refuseDerivedInNewRuns, takeKey, type TakenKey } from '../idempotencyKey';
import { type KeyedAnswer, sendKeyed } from '../keyedSend';
import { itemError, operationError, itemParameter, optionalText, requiredText, subaccountQuery, switchParameter } from '../parameters';
import { countSent, spendLimitsField } from '../spendLimits';
import { checkAccountLimits } from '../accountLimits';
import { CREATE_PAYMENT_ORDER_TOOL_DESCRIPTION, toolDescriptionField } from '../toolDescriptions';
import { addressesFor, currentOrder, flatOrder, replayedOrder } from './createOutput';
import { checkOrderTerms, guardOrder } from './createGuards';
import { orderByKeyInRun } from './findOrders';
import { DEFAULT_REUSE_WINDOW_HOURS, existingOrderFinding, type FoundCheck, foundOrderProblem } from './foundOrder';
import { DEFAULT_KEY_FIELD, FIELD_ALIASES, KEY_ALIASES, OPTIONAL_INPUT_FIELDS, REQUIRED_INPUT_FIELDS } from './inputItem';
import { orderAmount } from './orderAmount';
import { mappedOrderFields, orderHoldingKey, refuseSharedKey, runBusinessKeys } from './runKeys';
import { DEFINED_BELOW_LABELS, MAPPED_LABELS, type UserField } from './sameOrder';

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
			)} (memo optional; sender, chain and asset can also be given once below for rows without them); with Idempotency Key → Business Key, the column named in Business Key Field (left at "${DEFAULT_KEY_FIELD}": ${KEY_ALIASES.join(' / ')}). An item that lacks a required column, or has two for one field, fails before anything is sent.`,
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
// The orders already made or found, for the error of a run whose later row failed.
export { succeededRows } from './createOutput';
// How a person knows a row in an error: its Business Key, else its memo.
export { rowReference } from './runKeys';

export const description = updateDisplayOptions({ show: { resource: ['paymentOrder'], operation: ['create'] } }, properties);

/** One payment order for one item, in four steps; nothing is sent before the guards pass. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const order = orderFieldsOf(this, itemIndex);
	// Nothing is sent before the key is known: a Derived key that cannot be anchored fails here.
	const keyed = await takeKey(this, itemIndex, 'POST /payment', order.businessKey);
	const body = withSettlement(this, itemIndex, order, keyed.lineage);
	const found = await guard(this, itemIndex, body, order.amount, keyed);
	const sent = await sendOrder(this, itemIndex, body, found, order.labels);
	return sent.reused ?? (await presentOrder(this, itemIndex, sent, keyed.newKey, found));
}

/**
 * The row's own checks, run by the router for every row before any row is sent (actions/router.ts):
 * its fields (columns), amount, settlement terms, Business Key, spend limits, chain and asset. Sends
 * nothing but the run's one GET /supported-assets. execute() runs the same checks again for the row.
 */
export async function checkRow(this: IExecuteFunctions, itemIndex: number): Promise<void> {
	const order = orderFieldsOf(this, itemIndex);
	if (keyMode(this, itemIndex) === 'custom') {
		try {
			if (order.businessKey) validateIdempotencyKey(order.businessKey.value, order.businessKey.label);
			else validateIdempotencyKey(itemParameter(this, 'idempotencyKey', itemIndex, ''), 'Business Key');
		} catch (error) {
			throw itemError(this, error, itemIndex);
		}
	} else {
		await refuseDerivedInNewRuns(this, itemIndex);
	}
	const body = withSettlement(this, itemIndex, order, undefined);
	reuseWindow(this, this.getNodeParameter('options', itemIndex, {}) as IDataObject, itemIndex);
	await checkOrderTerms(this, itemIndex, body, order.amount);
}

/** What the item gives of its order, checked before the key is taken. */
interface OrderFields {
	/** Who pays whom, what, how much and how it settles; the settlement's terms come with the key. */
	body: IDataObject;
	amount: UsdAmount;
	additional: IDataObject;
	/** The Business Key from the mapped input field (Map Automatically), else none (the parameter is read). */
	businessKey?: { value: unknown; label: string };
	/** The panel's labels of the fields, for an order found with other values. */
	labels: Record<UserField, string>;
}

/** Step 1, read once per run and item (checkRow, then execute): a copy whose body the caller completes. */
function orderFieldsOf(ctx: IExecuteFunctions, itemIndex: number): OrderFields {
	const order = orderFieldsOnce(ctx, itemIndex, () => readOrderFields(ctx, itemIndex));
	return { ...order, body: { ...order.body } };
}
const orderFieldsOnce = readOncePerItem<OrderFields>();

/** Step 1: the order's fields, from the input item's columns (Map Automatically) or from the panel. */
function readOrderFields(ctx: IExecuteFunctions, itemIndex: number): OrderFields {
	const mode = ctx.getNodeParameter('mode', itemIndex, 'standard') as string;
	let body: IDataObject;
	let amount: UsdAmount;
	let businessKey: { value: unknown; label: string } | undefined;
	const mapped = ctx.getNodeParameter('dataMode', itemIndex, 'defineBelow') === 'autoMapInputData';
	if (mapped) {
		let fields;
		try {
			fields = mappedOrderFields(ctx, itemIndex);
		} catch (error) {
			// An InputFieldError names the field; else Sender User ID for Rows Without One did not resolve.
			throw operationError(
				ctx,
				(error as Error).message,
				itemIndex,
				'Order Fields is set to Map Automatically: each input item needs these columns (the notice above lists the names accepted; a sender, chain or asset can also be given once for all rows: Sender User ID for Rows Without One, Default Chain, Default Asset). Nothing was sent for this item.',
			);
		}
		amount = orderAmount(ctx, itemIndex, true);
		body = {
			fromUserId: fields.fromUserId,
			toAddress: fields.toAddress,
			toChain: fields.toChain,
			asset: fields.asset,
			amountUsd: amount.value,
			memo: fields.memo,
			mode,
		};
		// A column is read for the key only with Idempotency Key → Business Key.
		if (fields.businessKeyColumn !== undefined) {
			businessKey = { value: fields.businessKey, label: `Input field "${fields.businessKeyColumn}"` };
			refuseSharedKey(ctx, itemIndex);
		}
	} else {
		amount = orderAmount(ctx, itemIndex, false);
		body = {
			fromUserId: requiredText(ctx, 'fromUserId', itemIndex, 'Sender User ID'),
			toAddress: requiredText(ctx, 'toAddress', itemIndex, 'Recipient Address'),
			toChain: requiredText(ctx, 'toChain', itemIndex, 'Chain'),
			asset: requiredText(ctx, 'asset', itemIndex, 'Asset'),
			amountUsd: amount.value,
			memo: String(itemParameter(ctx, 'memo', itemIndex, '') ?? ''),
			mode,
		};
	}
	const additional = ctx.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	return { body, amount, additional, businessKey, labels: mapped ? MAPPED_LABELS : DEFINED_BELOW_LABELS };
}

/**
 * Step 1, continued once the key is known: the settlement's terms. An instant order settles against
 * its quote; a standard one expires, counted from the execution's start (the lineage's anchor, so a
 * retry sends the same expiry).
 */
function withSettlement(ctx: IExecuteFunctions, itemIndex: number, { body, additional }: OrderFields, lineage: Lineage | undefined): IDataObject {
	const mode = body.mode;
	const { expiry, quoteId, expiresAtText, expiresInMinutes } = settlementInputs(ctx, itemIndex, additional);
	const subaccountId = optionalText(additional.subaccountId);

	if (mode === 'instant') {
		if (!quoteId)
			throw operationError(
				ctx,
				'Quote ID is required for instant orders',
				itemIndex,
				'Create a quote first with Quote → Create and map its quoteId into Quote ID (with Settlement Mode from an expression: Additional Fields → Quote ID).',
			);
		if (expiry === 'at') {
			throw operationError(
				ctx,
				'Expires At is not accepted for instant orders: the service sets their funding window',
				itemIndex,
				'Set Expires to "In a Number of Minutes" (ignored for instant orders) or use a standard order.',
			);
		}
		if (subaccountId) {
			throw operationError(
				ctx,
				'Subaccount ID is not accepted for instant orders',
				itemIndex,
				'Give the subaccount to Create Quote instead: an instant order takes the account of its quote.',
			);
		}
		body.quoteId = quoteId;
	} else if (mode === 'standard') {
		if (expiry === 'at') {
			const text = expiresAtText();
			const at = text === undefined ? NaN : Date.parse(text);
			if (Number.isNaN(at)) throw operationError(ctx, 'Expires At is required for standard orders (a future date and time)', itemIndex);
			if (at <= Date.now()) throw operationError(ctx, `Expires At must be in the future (got ${new Date(at).toISOString()})`, itemIndex);
			body.expiresAt = new Date(at).toISOString();
		} else {
			const minutes = expiresInMinutes();
			if (!Number.isFinite(minutes) || minutes < 1) {
				throw operationError(ctx, 'Expires In (Minutes) must be at least 1', itemIndex);
			}
			body.expiresAt = relativeExpiry(lineage?.anchorMs, minutes, Date.now());
		}
		if (quoteId) body.quoteId = quoteId;
		if (subaccountId) body.subaccountId = subaccountId;
	} else {
		throw operationError(ctx, `Settlement Mode must be "standard" or "instant" (got "${String(mode)}")`, itemIndex);
	}
	return body;
}

/** The settlement's parameters of an item (Expires, Quote ID, Expires At, Expires In), each read once per run and item. */
interface SettlementInputs {
	expiry: string;
	quoteId: string | undefined;
	expiresAtText: () => string | undefined;
	expiresInMinutes: () => number;
}

function settlementInputs(ctx: IExecuteFunctions, itemIndex: number, additional: IDataObject): SettlementInputs {
	return settlementOnce(ctx, itemIndex, () => ({
		expiry: ctx.getNodeParameter('expiry', itemIndex, 'inMinutes') as string,
		// The panel's Quote ID (instant; standard in versions 1 and 2), else Additional Fields → Quote ID (2.1).
		quoteId: optionalText(itemParameter(ctx, 'quoteId', itemIndex, '')) ?? optionalText(additional.quoteId),
		// Read only where the mode and Expires use them (as before), then kept.
		expiresAtText: () => expiresAtOnce(ctx, itemIndex, () => optionalText(itemParameter(ctx, 'expiresAt', itemIndex, ''))),
		expiresInMinutes: () => expiresInOnce(ctx, itemIndex, () => Number(ctx.getNodeParameter('expiresInMinutes', itemIndex, 60))),
	}));
}
const settlementOnce = readOncePerItem<SettlementInputs>();
const expiresAtOnce = readOncePerItem<string | undefined>();
const expiresInOnce = readOncePerItem<number>();

/**
 * Step 2: the guards, before any request for this item: spend limits and the supported pair (and a
 * dry run's read-only checks), the reuse window, Check Account Limits First; a dry run also says
 * which items already have an order, and what a real run would do with it.
 */
async function guard(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, amount: UsdAmount, keyed: TakenKey): Promise<FoundCheck> {
	await guardOrder(ctx, itemIndex, body, amount);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const reuseWindowHours = reuseWindow(ctx, options, itemIndex);
	if (switchParameter(ctx, 'options.checkLimits', itemIndex, false, 'Check Account Limits First', 'guard')) {
		await checkAccountLimits(ctx, itemIndex, amount, subaccountQuery(body));
	}
	const found: FoundCheck = { key: keyed.key, keyKind: keyed.mode, lineage: keyed.lineage, reuseWindowHours };
	if (keyed.mode === 'custom' && isDryRun(ctx)) {
		const existing = await orderByKeyInRun.call(ctx, {
			key: keyed.key,
			runKeys: () => runBusinessKeys(ctx),
			subaccountId: optionalText(body.subaccountId),
			itemIndex,
			alsoRecent: false,
		});
		if (existing) noteFinding(ctx, itemIndex, existingOrderFinding(existing.order, found, existing.skewMs));
	}
	return found;
}

/**
 * Step 3: the keyed send (actions/keyedSend.ts), the first try's request on every try. A Business
 * Key that meets the service's 409 was used by an earlier run, perhaps with an expiry counted from
 * its own start: the order holding it answers instead when it is this payment.
 */
async function sendOrder(
	ctx: IExecuteFunctions,
	itemIndex: number,
	body: IDataObject,
	found: FoundCheck,
	labels: Record<UserField, string>,
): Promise<KeyedAnswer<IDataObject>> {
	const { key, lineage } = found;
	return await sendKeyed(ctx, itemIndex, {
		key,
		record: 'payment order',
		method: 'POST',
		path: '/payment',
		keyIn: 'body',
		body,
		// A refusal that names no field: the account's limits are one cause the node can check.
		limitsOnRefusal: (first) => ({ path: '/account/limits', qs: subaccountQuery(first.body) }),
		// Max Total per Run over what this run actually sends, not only the batch's amounts read before.
		beforeSend: (first) => countSent(ctx, itemIndex, first.body.amountUsd),
		onKeyReused:
			found.keyKind === 'custom'
				? async ({ body: request }) => {
						const existing = await orderHoldingKey.call(ctx, itemIndex, key, request, labels);
						if (!existing) return undefined;
						checkFoundOrder(ctx, itemIndex, existing.order, found, existing.skewMs);
						const addresses = await addressesFor.call(ctx, itemIndex, existing.order, request.subaccountId);
						return replayedOrder(existing.order, addresses, key, lineage, 'conflict', request.expiresAt);
					}
				: undefined,
	});
}

/**
 * Step 4: the order as output. One this request made is shown as the service answered; an answer
 * the service replayed for the key is a snapshot, so the order is read as it is now and checked to
 * be this item's payment.
 */
async function presentOrder(
	ctx: IExecuteFunctions,
	itemIndex: number,
	sent: KeyedAnswer<IDataObject>,
	newKey: boolean,
	found: FoundCheck,
): Promise<IDataObject> {
	const { response, startedMs } = sent;
	const { key, lineage } = found;
	const request = sent.sent.body;
	const order = (response.paymentOrder ?? {}) as IDataObject;
	const byThisRequest = createdByThisRequest({
		firstPossibleUse: newKey && sent.firstTry,
		createdAt: order.createdAt,
		requestStartedMs: startedMs,
	});
	if (byThisRequest) return flatOrder(response, true, key);
	const read = await currentOrder.call(ctx, itemIndex, String(response.paymentOrderId ?? order.id ?? ''), request.subaccountId);
	const current = read?.order ?? order;
	checkFoundOrder(ctx, itemIndex, current, found, read?.skewMs ?? 0);
	const addresses =
		Array.isArray(response.depositAddresses) && response.depositAddresses.length > 0
			? {}
			: await addressesFor.call(ctx, itemIndex, current, request.subaccountId);
	return replayedOrder(current, { ...response, ...addresses }, key, lineage, 'replay', undefined, found.keyKind === 'derived');
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

/** Fails the item when the order found by its key is not its payment (see foundOrderProblem). */
function checkFoundOrder(ctx: IExecuteFunctions, itemIndex: number, order: IDataObject, found: FoundCheck, skewMs: number): void {
	const problem = foundOrderProblem(order, found, skewMs);
	if (problem) throw operationError(ctx, problem.message, itemIndex, problem.description);
}
