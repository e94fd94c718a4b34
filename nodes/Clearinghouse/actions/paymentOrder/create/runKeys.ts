/** The Business Keys of a run of Create, read across its items (the pure rules are in inputItem.ts). */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { validateIdempotencyKey } from '../../../../shared/idempotency';
import { keyMode } from '../../idempotencyKey';
import { itemParameter, operationError, optionalText } from '../../parameters';
import { orderByKeyInRun } from '../findOrders';
import {
	businessKeyColumn,
	DEFAULT_KEY_FIELD,
	type InputOrderFields,
	inputValue,
	keyedRow,
	type KeyedRow,
	orderFieldsFromItem,
	rowsSharingKey,
} from '../inputItem';
import { differingFields, type UserField } from '../sameOrder';

/** What one run has read of its rows: each mapped row's fields (or why not), its rows by Business Key. */
interface RunRows {
	fields: Map<number, { fields: InputOrderFields } | { error: unknown }>;
	keyed?: { byKey: Map<string, KeyedRow[]>; byIndex: Map<number, KeyedRow> };
}

const runs = new WeakMap<IExecuteFunctions, RunRows>();

function runOf(ctx: IExecuteFunctions): RunRows {
	let run = runs.get(ctx);
	if (!run) {
		run = { fields: new Map() };
		runs.set(ctx, run);
	}
	return run;
}

/** A mapped row's order fields, with its Business Key's column (Business Key only); read once per run, errors too. */
export function mappedOrderFields(ctx: IExecuteFunctions, itemIndex: number): InputOrderFields {
	const run = runOf(ctx);
	let row = run.fields.get(itemIndex);
	if (!row) {
		const keyField = keyMode(ctx, itemIndex) === 'custom' ? String(ctx.getNodeParameter('businessKeyField', itemIndex, DEFAULT_KEY_FIELD) ?? '') : undefined;
		try {
			const given = (name: string) => String(ctx.getNodeParameter(name, itemIndex, '') ?? '');
			row = {
				fields: orderFieldsFromItem(ctx.getInputData()[itemIndex]?.json ?? {}, keyField, String(itemParameter(ctx, 'senderForAllRows', itemIndex, '') ?? ''), {
					toChain: given('chainForAllRows'),
					asset: given('assetForAllRows'),
				}),
			};
		} catch (error) {
			row = { error };
		}
		run.fields.set(itemIndex, row);
	}
	if ('error' in row) throw row.error;
	return row.fields;
}

/**
 * A row whose Business Key another mapped row of this run carries fails before anything is sent. The service
 * pays a key once: for another payment whichever row arrives first is paid; for the same payment listed
 * twice both rows show one order, and a person would count two.
 */
export function refuseSharedKey(ctx: IExecuteFunctions, itemIndex: number): void {
	const run = runOf(ctx);
	if (!run.keyed) {
		run.keyed = { byKey: new Map(), byIndex: new Map() };
		const items = ctx.getInputData();
		for (let index = 0; index < items.length; index++) {
			let row: KeyedRow | undefined;
			try {
				if (keyMode(ctx, index) !== 'custom' || ctx.getNodeParameter('dataMode', index, 'defineBelow') !== 'autoMapInputData') continue;
				row = keyedRow(index, mappedOrderFields(ctx, index));
			} catch {
				// that item fails on its own, with its own message
			}
			if (!row) continue;
			run.keyed.byIndex.set(index, row);
			run.keyed.byKey.set(row.key, [...(run.keyed.byKey.get(row.key) ?? []), row]);
		}
	}
	const mine = run.keyed.byIndex.get(itemIndex);
	if (!mine) return;
	const others = rowsSharingKey(run.keyed.byKey.get(mine.key) ?? [], mine);
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

/** The readable Business Keys of the run's items, for the one listing per run that answers the service's 409s. */
export function runBusinessKeys(ctx: IExecuteFunctions): string[] {
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

/** The order a 409 says holds `key` when it is the payment `sent` (only computed values may differ); throws naming each field otherwise. */
export async function orderHoldingKey(
	ctx: IExecuteFunctions,
	itemIndex: number,
	key: string,
	sent: IDataObject,
	labels: Record<UserField, string>,
): Promise<{ order: IDataObject; skewMs: number } | undefined> {
	const found = await orderByKeyInRun(ctx, { key, runKeys: () => runBusinessKeys(ctx), subaccountId: optionalText(sent.subaccountId), itemIndex });
	if (!found) return undefined;
	const { order } = found;
	const differences = differingFields(order, sent, labels);
	if (differences.length > 0) {
		const list = differences.map((d) => `${d.label} is ${d.order} on the order, this run sends ${d.sent}`).join('; ');
		throw operationError(
			ctx,
			`This item's Business Key "${key}" already belongs to payment order ${String(order.id)} with other values: ${list}`,
			itemIndex,
			`Nothing new was created. If this item is that payment, set the value back (Payment Order → Get shows the order). If it is a different payment, give it a NEW Business Key: running it anew with a new key pays again.`,
		);
	}
	return found;
}

/** How a person knows the row in an error: its Business Key, else its memo. */
export function rowReference(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	const mapped = ctx.getNodeParameter('dataMode', itemIndex, 'defineBelow') === 'autoMapInputData';
	const json = ctx.getInputData()[itemIndex]?.json ?? {};
	const candidates: unknown[] = [];
	if (keyMode(ctx, itemIndex) === 'custom') {
		const keyField = mapped ? String(ctx.getNodeParameter('businessKeyField', itemIndex, DEFAULT_KEY_FIELD) ?? '') : '';
		candidates.push(mapped ? orNone(() => json[businessKeyColumn(json, keyField)]) : itemParameter(ctx, 'idempotencyKey', itemIndex, ''));
	}
	candidates.push(mapped ? orNone(() => inputValue(json, 'memo')) : itemParameter(ctx, 'memo', itemIndex, ''));
	const found = candidates.find((value) => (typeof value === 'string' && value.trim() !== '') || typeof value === 'number');
	if (found === undefined) return undefined;
	const text = String(found).trim();
	return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** What `read` finds in a mapped row, or undefined where it throws (a column missing, or two). */
function orNone(read: () => unknown): unknown {
	try {
		return read();
	} catch {
		return undefined;
	}
}
