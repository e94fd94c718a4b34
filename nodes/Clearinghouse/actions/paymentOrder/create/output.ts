/** Create's output: the order flat, as Get returns it, beside what only Create knows (`created`, the key, where to pay). */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { fromPips, toPips } from '../../../../shared/amounts';
import { createdInLineage, type Lineage } from '../../../../shared/idempotency';
import { apiRequest, apiRequestWithStatus } from '../../../../shared/transport';
import { depositAddressEntries } from '../../depositAddress/depositAddresses';
import { keyMode } from '../../idempotencyKey';
import { optionalText } from '../../parameters';
import { readOncePerRun } from '../../readOnce';
import { clockSkew, fundsSeen } from '../foundOrder';

/** GET /payment-orders/{id}: the order now, without its returns block. A failed read fails the item (the same key finds the order again). */
export async function currentOrder(
	ctx: IExecuteFunctions,
	itemIndex: number,
	id: string,
	subaccountId: unknown,
): Promise<{ order: IDataObject; skewMs: number } | undefined> {
	if (id === '') return undefined;
	const scope = optionalText(subaccountId);
	const answer = await apiRequestWithStatus(ctx, {
		method: 'GET',
		path: `/payment-orders/${encodeURIComponent(id)}`,
		qs: scope ? { subaccountId: scope } : undefined,
		itemIndex,
	});
	const { returns: _returns, ...order } = (answer.body ?? {}) as IDataObject;
	void _returns;
	return { order, skewMs: clockSkew(answer.date, Date.now()) };
}

const addressesOnce = readOncePerRun<Promise<IDataObject[]>, string>();

/**
 * Where to fund a found order still awaiting funds (a 409 or a replayed snapshot may carry none): the
 * account's deposit addresses (the spec: account-scoped, not per order), read once per run and scope.
 */
export async function addressesFor(ctx: IExecuteFunctions, itemIndex: number, order: IDataObject, subaccountId: unknown): Promise<IDataObject> {
	if (order.status !== 'AWAITING_FUNDS') return {};
	const scope = optionalText(subaccountId);
	const read = addressesOnce(ctx, scope ?? '', async () =>
		depositAddressEntries(await apiRequest(ctx, { method: 'GET', path: '/deposit-addresses', qs: scope ? { subaccountId: scope } : undefined, itemIndex })),
	);
	return { depositAddresses: await read };
}

/** An order the service already had (a replayed answer, or found after a 409), as it is now, with a note saying why. */
export function replayedOrder(
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

/** The order flat, as Get returns it, beside `created`, the key and where to pay; other top-level fields pass through. */
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

/** An order found awaiting funds may already have some on the way: the note says how much is missing, so a re-run never funds it twice. */
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

/** The one deposit address to fund the order: its own asset on its own chain (any other stays in `depositAddresses`). */
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

/** The orders made or found before a row failed, for the run's error: how to finish the batch without paying them again. */
export function succeededRows(ctx: IExecuteFunctions, records: IDataObject[]): { made: string; detail: string } {
	const made = records.filter((r) => r.created === true).length;
	const found = records.length - made;
	const rerun =
		runKeyMode(ctx) === 'derived'
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
