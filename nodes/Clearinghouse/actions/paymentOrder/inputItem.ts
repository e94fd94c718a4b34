import type { IDataObject } from 'n8n-workflow';

/**
 * "Map Automatically" of Payment Order → Create: the order fields read from the input item's
 * fields of the same name, as n8n's database nodes map columns. No expression is evaluated, so a
 * batch costs n8n no expression-engine call per field.
 */

/** The input fields read, in the order the request body lists them. */
export const REQUIRED_INPUT_FIELDS = ['fromUserId', 'toAddress', 'toChain', 'asset', 'amountUsd'] as const;
export const OPTIONAL_INPUT_FIELDS = ['memo'] as const;
export const DEFAULT_KEY_FIELD = 'reference';

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
	/** As found (text or number); checked exactly by the amount parser. */
	amountUsd: unknown;
	memo: string;
	/** The business key as found, when a key field was named. */
	businessKey?: unknown;
}

/**
 * The column names Map Automatically accepts for each order field, besides the API name: the
 * panel's label and the names a payee table commonly has. Compared without case, spaces or
 * punctuation ("Amount (USD)", "amount_usd" and "AmountUSD" are one name).
 */
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

/**
 * The input column that holds an order field: the API name itself when the item has it, else the one
 * column whose name is an alias of the field. Two different alias columns (e.g. "Wallet" and
 * "Address") fail the item: which one pays is not guessed.
 */
export function columnOf(json: IDataObject, field: OrderField): string | undefined {
	if (own(json, field) !== undefined) return field;
	const wanted = new Set(FIELD_ALIASES[field].map(squash));
	const columns = Object.keys(json).filter((column) => wanted.has(squash(column)) && own(json, column) !== undefined && own(json, column) !== null);
	if (columns.length > 1) {
		throw new InputFieldError(
			field,
			`is given by ${columns.length} columns (${columns.map((c) => `"${c}"`).join(', ')}): keep one, or rename the one to use to "${field}"`,
		);
	}
	return columns[0];
}

/** The value of an order field in an input item (through its column), undefined when there is none. */
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
 * The order fields of one input item. `keyField`: the field holding the business key (only with
 * Idempotency Key → Business Key); a missing key fails the item, so it never shares another's key.
 * `sender`: the Sender User ID for rows without one (a node field, given once for all rows).
 */
export function orderFieldsFromItem(json: IDataObject, keyField?: string, sender = ''): InputOrderFields {
	const amount = inputValue(json, 'amountUsd');
	const fields: InputOrderFields = {
		fromUserId: text(json, 'fromUserId', true, sender.trim()),
		toAddress: text(json, 'toAddress', true),
		toChain: text(json, 'toChain', true),
		asset: text(json, 'asset', true),
		amountUsd: amount,
		memo: text(json, 'memo', false),
	};
	if (amount === undefined || amount === null)
		throw new InputFieldError('amountUsd', 'is missing from the input item (or a column named "Amount (USD)" or "Amount")');
	if (keyField !== undefined) {
		const name = keyField.trim();
		if (name === '') throw new InputFieldError('(Business Key Field)', 'is empty: name the input field that holds the key');
		const key = own(json, name);
		if (key === undefined || key === null) throw new InputFieldError(name, 'is missing from the input item (it holds the business key)');
		fields.businessKey = key; // checked by the key's own rules (text, 1-255 characters)
	}
	return fields;
}
