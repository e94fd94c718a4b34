import type { IDataObject } from 'n8n-workflow';

import { parseUsdAmount } from '../../../shared/amounts';
import { validateIdempotencyKey } from '../../../shared/idempotency';

/**
 * Create's "Map Automatically": the order fields read from the input item's columns, as n8n's database
 * nodes map them. No expression is evaluated: a batch costs no expression-engine call per field.
 */

/** The input fields read, in the order the request body lists them. */
export const REQUIRED_INPUT_FIELDS = ['fromUserId', 'toAddress', 'toChain', 'asset', 'amountUsd'] as const;
export const OPTIONAL_INPUT_FIELDS = ['memo'] as const;
export const DEFAULT_KEY_FIELD = 'reference';
/** The key columns a payee table commonly has, read while Business Key Field is left at "reference"; one, never two. */
export const KEY_ALIASES = [DEFAULT_KEY_FIELD, 'Invoice', 'Invoice Number', 'Invoice ID'] as const;

export class InputFieldError extends Error {
	constructor(
		readonly field: string,
		readonly rule: string,
	) {
		super(`Input field "${field}" ${rule}`);
	}
}

export interface InputOrderFields {
	fromUserId: string;
	toAddress: string;
	toChain: string;
	asset: string;
	/** As found; checked exactly by the amount parser. */
	amountUsd: unknown;
	memo: string;
	/** The business key as found, when a key field was named, and the column it was read from. */
	businessKey?: unknown;
	businessKeyColumn?: string;
}

/** The column names accepted for each order field, compared without case, spaces or punctuation ("Amount (USD)" = "amount_usd"). */
export const FIELD_ALIASES: Record<OrderField, readonly string[]> = {
	fromUserId: ['fromUserId', 'Sender User ID', 'Sender', 'Sender ID', 'From User ID'],
	toAddress: ['toAddress', 'Recipient Address', 'Recipient', 'Wallet', 'Wallet Address', 'Address'],
	toChain: ['toChain', 'Chain', 'Network'],
	asset: ['asset', 'Stablecoin', 'Token'],
	amountUsd: ['amountUsd', 'Amount (USD)', 'Amount', 'USD'],
	memo: ['memo', 'Invoice', 'Invoice Number', 'Description', 'Note'],
};

export type OrderField = (typeof REQUIRED_INPUT_FIELDS)[number] | (typeof OPTIONAL_INPUT_FIELDS)[number];

const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

const own = (json: IDataObject, name: string): unknown => (Object.prototype.hasOwnProperty.call(json, name) ? json[name] : undefined);

/** The input column of an order field: the API name, else the one alias column; two alias columns fail the item (which one pays is not guessed). */
export function columnOf(json: IDataObject, field: OrderField): string | undefined {
	return columnAmong(json, field, FIELD_ALIASES[field]);
}

function columnAmong(json: IDataObject, field: string, aliases: readonly string[]): string | undefined {
	if (own(json, field) !== undefined) return field;
	const wanted = new Set(aliases.map(squash));
	const columns = Object.keys(json).filter((column) => wanted.has(squash(column)) && own(json, column) !== undefined && own(json, column) !== null);
	if (columns.length > 1) {
		throw new InputFieldError(
			field,
			`is given by ${columns.length} columns (${columns.map((c) => `"${c}"`).join(', ')}): keep one, or rename the one to use to "${field}"`,
		);
	}
	return columns[0];
}

/** The column of a row's business key: the one Business Key Field names, or at its default one of KEY_ALIASES'. Throws when none, or two. */
export function businessKeyColumn(json: IDataObject, keyField: string): string {
	const name = keyField.trim();
	if (name === '') throw new InputFieldError('(Business Key Field)', 'is empty: name the input field that holds the key');
	const column = name === DEFAULT_KEY_FIELD ? columnAmong(json, name, KEY_ALIASES) : name;
	const key = column === undefined ? undefined : own(json, column);
	if (key === undefined || key === null) {
		const also =
			name === DEFAULT_KEY_FIELD
				? `; a column named ${KEY_ALIASES.slice(1)
						.map((a) => `"${a}"`)
						.join(', ')
						.replace(/, ([^,]*)$/, ' or $1')} also does`
				: '';
		throw new InputFieldError(name, `is missing from the input item (it holds the business key${also})`);
	}
	return column!;
}

/** The value of an order field in an input item, undefined when there is none. */
export function inputValue(json: IDataObject, field: OrderField): unknown {
	const column = columnOf(json, field);
	return column === undefined ? undefined : own(json, column);
}

/** Text of a field: a string (trimmed) or a finite number; anything else is refused. */
function text(json: IDataObject, name: OrderField, required: boolean, fallback = ''): string {
	const column = columnOf(json, name) ?? name;
	const value = own(json, column);
	if (value === undefined || value === null) {
		if (fallback !== '') return fallback;
		if (required)
			throw new InputFieldError(
				name,
				`is missing from the input item (or a column named ${FIELD_ALIASES[name]
					.slice(1, 3)
					.map((a) => `"${a}"`)
					.join(' or ')})`,
			);
		return '';
	}
	let result: string;
	if (typeof value === 'string') result = value.trim();
	else if (typeof value === 'number' && Number.isFinite(value)) result = String(value);
	else throw new InputFieldError(column, `must be text (got ${Array.isArray(value) ? 'a list' : typeof value})`);
	if (result === '' && fallback !== '') return fallback;
	if (required && result === '') throw new InputFieldError(column, 'is empty in the input item');
	return result;
}

/**
 * The order fields of one input item. `keyField` (Business Key only): a missing key fails the item, so it
 * never shares another's. `sender` and `defaults`: for rows without them (node fields given once for all rows).
 */
export function orderFieldsFromItem(json: IDataObject, keyField?: string, sender = '', defaults: { toChain?: string; asset?: string } = {}): InputOrderFields {
	const amount = inputValue(json, 'amountUsd');
	const fields: InputOrderFields = {
		fromUserId: text(json, 'fromUserId', true, sender.trim()),
		toAddress: text(json, 'toAddress', true),
		toChain: text(json, 'toChain', true, (defaults.toChain ?? '').trim()),
		asset: text(json, 'asset', true, (defaults.asset ?? '').trim()),
		amountUsd: amount,
		memo: text(json, 'memo', false),
	};
	if (amount === undefined || amount === null)
		throw new InputFieldError('amountUsd', 'is missing from the input item (or a column named "Amount (USD)" or "Amount")');
	if (keyField !== undefined) {
		fields.businessKeyColumn = businessKeyColumn(json, keyField);
		fields.businessKey = own(json, fields.businessKeyColumn); // checked by the key's own rules (text, 1-255 characters)
	}
	return fields;
}

/** A row of a run as its Business Key and what it pays. */
export interface KeyedRow {
	/** n8n's item index. */
	index: number;
	key: string;
	column: string;
	payment: Record<OrderField, string>;
}

/** The row's key and payment; undefined without a valid key or amount (the row fails on its own). */
export function keyedRow(index: number, fields: InputOrderFields): KeyedRow | undefined {
	try {
		const { fromUserId, toAddress, toChain, asset, memo } = fields;
		return {
			index,
			key: validateIdempotencyKey(fields.businessKey),
			column: fields.businessKeyColumn!,
			payment: { fromUserId, toAddress, toChain, asset, amountUsd: parseUsdAmount(fields.amountUsd).text, memo },
		};
	} catch {
		return undefined;
	}
}

/** The other rows of the run that carry `row`'s key, each with the fields that differ (none: the same payment listed twice). */
export function rowsSharingKey(rows: ReadonlyArray<KeyedRow | undefined>, row: KeyedRow): Array<{ index: number; differing: string[] }> {
	const others: Array<{ index: number; differing: string[] }> = [];
	for (const other of rows) {
		if (!other || other.index === row.index || other.key !== row.key) continue;
		const differing = (Object.keys(row.payment) as OrderField[])
			.filter((field) => row.payment[field] !== other.payment[field])
			.map((field) => `${field} ${JSON.stringify(row.payment[field])} here, ${JSON.stringify(other.payment[field])} there`);
		others.push({ index: other.index, differing });
	}
	return others;
}
