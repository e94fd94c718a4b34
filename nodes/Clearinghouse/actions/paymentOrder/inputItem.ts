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

const own = (json: IDataObject, name: string): unknown => (Object.prototype.hasOwnProperty.call(json, name) ? json[name] : undefined);

/** Text of a field: a string (trimmed) or a finite number; anything else is refused. */
function text(json: IDataObject, name: string, required: boolean): string {
	const value = own(json, name);
	if (value === undefined || value === null) {
		if (required) throw new InputFieldError(name, 'is missing from the input item');
		return '';
	}
	let result: string;
	if (typeof value === 'string') result = value.trim();
	else if (typeof value === 'number' && Number.isFinite(value)) result = String(value);
	else throw new InputFieldError(name, `must be text (got ${Array.isArray(value) ? 'a list' : typeof value})`);
	if (required && result === '') throw new InputFieldError(name, 'is empty in the input item');
	return result;
}

/**
 * The order fields of one input item. `keyField`: the field holding the business key (only with
 * Idempotency Key → Business Key); a missing key fails the item, so it never shares another's key.
 */
export function orderFieldsFromItem(json: IDataObject, keyField?: string): InputOrderFields {
	const amount = own(json, 'amountUsd');
	const fields: InputOrderFields = {
		fromUserId: text(json, 'fromUserId', true),
		toAddress: text(json, 'toAddress', true),
		toChain: text(json, 'toChain', true),
		asset: text(json, 'asset', true),
		amountUsd: amount,
		memo: text(json, 'memo', false),
	};
	if (amount === undefined || amount === null) throw new InputFieldError('amountUsd', 'is missing from the input item');
	if (keyField !== undefined) {
		const name = keyField.trim();
		if (name === '') throw new InputFieldError('(Business Key Field)', 'is empty: name the input field that holds the key');
		const key = own(json, name);
		if (key === undefined || key === null) throw new InputFieldError(name, 'is missing from the input item (it holds the business key)');
		fields.businessKey = key; // checked by the key's own rules (text, 1-255 characters)
	}
	return fields;
}
