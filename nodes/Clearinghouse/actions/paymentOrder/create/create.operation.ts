/**
 * Payment Order → Create: POST /payment, keyed with `idempotencyKey`. Safe to repeat: the transport
 * may repeat it, a retry of the execution sends the same key and request, and the service answers a
 * repeat with the order it already made, never a second one. `execute` as its steps; the rest of its room
 * beside it (fields, guards, spendLimits, output, runKeys).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { UsdAmount } from '../../../../shared/amounts';
import { createdByThisRequest, type Lineage, relativeExpiry } from '../../../../shared/idempotency';
import { isDryRun, noteFinding } from '../../dryRun';
import { readOncePerRun } from '../../readOnce';
import { keyMode, refuseDerivedInNewRuns, takeKey, type TakenKey, validBusinessKey } from '../../idempotencyKey';
import { type KeyedAnswer, sendKeyed } from '../../keyedSend';
import { operationError, itemParameter, optionalText, requiredText, subaccountQuery, switchParameter } from '../../parameters';
import { countSent } from './spendLimits';
import { addressesFor, currentOrder, flatOrder, replayedOrder } from './output';
import { checkAccountLimits, guardOrder } from './guards';
import { orderByKeyInRun } from '../findOrders';
import { DEFAULT_REUSE_WINDOW_HOURS, existingOrderFinding, type FoundCheck, foundOrderProblem } from '../foundOrder';
import { orderAmount } from '../orderAmount';
import { mappedOrderFields, orderHoldingKey, refuseSharedKey, runBusinessKeys } from './runKeys';
import { DEFINED_BELOW_LABELS, MAPPED_LABELS, type UserField } from '../sameOrder';

export { description } from './fields';
export { preflight } from './spendLimits';
export { succeededRows } from './output';
export { rowReference } from './runKeys';

/** One payment order for one item, in four steps; nothing is sent before the guards pass. */
export async function execute(ctx: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const order = orderFieldsOf(ctx, itemIndex);
	const keyed = await takeKey(ctx, itemIndex, 'POST /payment', order.businessKey);
	const body = withSettlement(ctx, itemIndex, order, keyed.lineage);
	const found = await guard(ctx, itemIndex, body, order.amount, keyed);
	const sent = await sendOrder(ctx, itemIndex, body, found, order.labels);
	return sent.reused ?? (await presentOrder(ctx, itemIndex, sent, keyed.newKey, found));
}

/** The row's own checks before any row is sent (execute() runs them again); sends nothing but the run's one GET /supported-assets. */
export async function checkRow(ctx: IExecuteFunctions, itemIndex: number): Promise<void> {
	const order = orderFieldsOf(ctx, itemIndex);
	if (keyMode(ctx, itemIndex) === 'custom') validBusinessKey(ctx, itemIndex, order.businessKey);
	else await refuseDerivedInNewRuns(ctx, itemIndex);
	const body = withSettlement(ctx, itemIndex, order, undefined);
	reuseWindow(ctx, ctx.getNodeParameter('options', itemIndex, {}) as IDataObject, itemIndex);
	await guardOrder(ctx, itemIndex, body, order.amount, true);
}

/** What the item gives of its order, checked before the key is taken; the settlement's terms come with the key. */
interface OrderFields {
	body: IDataObject;
	amount: UsdAmount;
	additional: IDataObject;
	/** The Business Key from the mapped input field (Map Automatically), else none (the parameter is read). */
	businessKey?: { value: unknown; label: string };
	/** The panel's labels of the fields, for an order found with other values. */
	labels: Record<UserField, string>;
}

/** Step 1, read once per run and item: a copy whose body the caller completes. */
function orderFieldsOf(ctx: IExecuteFunctions, itemIndex: number): OrderFields {
	const order = orderFieldsOnce(ctx, itemIndex, () => readOrderFields(ctx, itemIndex));
	return { ...order, body: { ...order.body } };
}
const orderFieldsOnce = readOncePerRun<OrderFields>();

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

/** Step 1, once the key is known: the settlement's terms. A standard order's expiry counts from the lineage's anchor, so a retry sends the same one. */
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

/** The settlement's parameters of an item, each read once per run and item. */
interface SettlementInputs {
	expiry: string;
	quoteId: string | undefined;
	expiresAtText: () => string | undefined;
	expiresInMinutes: () => number;
}

function settlementInputs(ctx: IExecuteFunctions, itemIndex: number, additional: IDataObject): SettlementInputs {
	return settlementOnce(ctx, itemIndex, () => ({
		expiry: ctx.getNodeParameter('expiry', itemIndex, 'inMinutes') as string,
		// The panel's Quote ID (instant), else Additional Fields → Quote ID (standard, or the mode from an expression).
		quoteId: optionalText(itemParameter(ctx, 'quoteId', itemIndex, '')) ?? optionalText(additional.quoteId),
		// Read only where the mode and Expires use them.
		expiresAtText: () => expiresAtOnce(ctx, itemIndex, () => optionalText(itemParameter(ctx, 'expiresAt', itemIndex, ''))),
		expiresInMinutes: () => expiresInOnce(ctx, itemIndex, () => Number(ctx.getNodeParameter('expiresInMinutes', itemIndex, 60))),
	}));
}
const settlementOnce = readOncePerRun<SettlementInputs>();
const expiresAtOnce = readOncePerRun<string | undefined>();
const expiresInOnce = readOncePerRun<number>();

/** Step 2: the guards, before any request for this item; a dry run also says which items already have an order. */
async function guard(ctx: IExecuteFunctions, itemIndex: number, body: IDataObject, amount: UsdAmount, keyed: TakenKey): Promise<FoundCheck> {
	await guardOrder(ctx, itemIndex, body, amount);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const reuseWindowHours = reuseWindow(ctx, options, itemIndex);
	if (switchParameter(ctx, 'options.checkLimits', itemIndex, false, 'Check Account Limits First', 'guard')) {
		await checkAccountLimits(ctx, itemIndex, amount, subaccountQuery(body));
	}
	const found: FoundCheck = { key: keyed.key, keyKind: keyed.mode, lineage: keyed.lineage, reuseWindowHours };
	if (keyed.mode === 'custom' && isDryRun(ctx)) {
		const existing = await orderByKeyInRun(ctx, {
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
 * Step 3: the keyed send. A Business Key that meets the service's 409 was used by an earlier run, perhaps
 * with an expiry counted from its own start: the order holding it answers instead when it is this payment.
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
		// A refusal naming no field: the account's limits are one cause the node can check.
		limitsOnRefusal: (first) => ({ path: '/account/limits', qs: subaccountQuery(first.body) }),
		// Max Total per Run over what this run actually sends, not only the batch's amounts read before.
		beforeSend: (first) => countSent(ctx, itemIndex, first.body.amountUsd),
		onKeyReused:
			found.keyKind === 'custom'
				? async ({ body: request }) => {
						const existing = await orderHoldingKey(ctx, itemIndex, key, request, labels);
						if (!existing) return undefined;
						checkFoundOrder(ctx, itemIndex, existing.order, found, existing.skewMs);
						const addresses = await addressesFor(ctx, itemIndex, existing.order, request.subaccountId);
						return replayedOrder(existing.order, addresses, key, lineage, 'conflict', request.expiresAt);
					}
				: undefined,
	});
}

/** Step 4: the order as output. A replayed answer is a snapshot: the order is read as it is now and checked to be this item's payment. */
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
	const read = await currentOrder(ctx, itemIndex, String(response.paymentOrderId ?? order.id ?? ''), request.subaccountId);
	const current = read?.order ?? order;
	checkFoundOrder(ctx, itemIndex, current, found, read?.skewMs ?? 0);
	const addresses =
		Array.isArray(response.depositAddresses) && response.depositAddresses.length > 0 ? {} : await addressesFor(ctx, itemIndex, current, request.subaccountId);
	return replayedOrder(current, { ...response, ...addresses }, key, lineage, 'replay', undefined, found.keyKind === 'derived');
}

/** Options → Reuse Orders Made Within (Hours), failing closed on a value it does not understand. */
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

/** Fails the item when the order found by its key is not its payment. */
function checkFoundOrder(ctx: IExecuteFunctions, itemIndex: number, order: IDataObject, found: FoundCheck, skewMs: number): void {
	const problem = foundOrderProblem(order, found, skewMs);
	if (problem) throw operationError(ctx, problem.message, itemIndex, problem.description);
}
