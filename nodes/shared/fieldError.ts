/** A value the user gave breaks a rule of its field (an amount, an idempotency key): found before anything is sent. */
export class FieldError extends Error {
	constructor(
		readonly field: string,
		readonly rule: string,
	) {
		super(`${field}: ${rule}`);
		this.name = 'FieldError';
	}
}
