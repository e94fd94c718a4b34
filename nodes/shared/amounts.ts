import { FieldError } from './fieldError';

/**
 * Exact USD amounts: the API takes `amountUsd` as a JSON number of whole pips (0.0001). Parsed as decimal
 * text, never through float arithmetic, and sent as a number whose shortest decimal form is that text.
 */
const PIPS_PER_USD = 10_000n;

export interface UsdAmount {
	/** Whole pips (1 USD = 10,000 pips). */
	pips: bigint;
	/** Canonical decimal text, e.g. "12.5" or "0.0001". */
	text: string;
	/** The JSON number to send; its decimal form equals `text`. */
	value: number;
}

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Parses an amount in USD exactly; throws FieldError naming the field and the broken rule. */
export function parseUsdAmount(input: unknown, field = 'amountUsd'): UsdAmount {
	let text: string;
	if (typeof input === 'number') {
		if (!Number.isFinite(input)) throw new FieldError(field, 'must be a finite number');
		// String(n) is the shortest text that round-trips, so 0.1 + 0.2 shows up as 0.30000000000000004
		// and is refused below instead of being rounded silently.
		text = numberToPlainText(input);
	} else if (typeof input === 'string') {
		text = input.trim();
		const why = notPlainDecimal(text);
		if (why) {
			// The exact text to write leads when the form tells it; the rule follows.
			const fix = plainFix(text);
			throw new FieldError(
				field,
				fix
					? `must be plain decimal text: write ${fix} (got "${input}"; ${why.replace(/ \(.*\)$/, '')})`
					: `must be plain decimal text such as 1250.50: ${why} (got "${input}")`,
			);
		}
	} else {
		throw new FieldError(field, 'is required (a number of US dollars, e.g. 125.50)');
	}
	if (text === '') throw new FieldError(field, 'is required (a number of US dollars, e.g. 125.50)');
	if (text.startsWith('-')) throw new FieldError(field, 'must be greater than 0');
	if (text.startsWith('+')) text = text.slice(1);
	if (text.startsWith('.')) text = `0${text}`;
	const match = DECIMAL.exec(text);
	if (!match) {
		throw new FieldError(field, `must be a plain decimal number of US dollars (got "${String(input)}")`);
	}
	const whole = match[1];
	const fraction = (match[2] ?? '').replace(/0+$/, '');
	if (fraction.length > 4) {
		throw new FieldError(
			field,
			`must have at most 4 decimal places, i.e. whole hundredths of a cent (got "${String(input)}")${roundingHint(input, whole, fraction)}`,
		);
	}
	const pips = BigInt(whole) * PIPS_PER_USD + BigInt(fraction.padEnd(4, '0') || '0');
	if (pips <= 0n) throw new FieldError(field, 'must be greater than 0');
	return fromPips(pips);
}

export function fromPips(pips: bigint): UsdAmount {
	const whole = pips / PIPS_PER_USD;
	const fraction = (pips % PIPS_PER_USD).toString().padStart(4, '0').replace(/0+$/, '');
	const text = fraction ? `${whole}.${fraction}` : whole.toString();
	const value = Number(text);
	if (!Number.isSafeInteger(Number(pips)) || numberToPlainText(value) !== text) {
		throw new FieldError('amountUsd', 'is too large to be sent exactly');
	}
	return { pips, text, value };
}

/** Reads an amount the API returned (a JSON number) as pips, for exact sums and comparisons. */
export function toPips(value: unknown): bigint {
	if (typeof value === 'number' && Number.isFinite(value)) {
		const text = numberToPlainText(value);
		const [whole, fraction = ''] = text.replace('-', '').split('.');
		const pips = BigInt(whole) * PIPS_PER_USD + BigInt(fraction.slice(0, 4).padEnd(4, '0') || '0');
		return text.startsWith('-') ? -pips : pips;
	}
	if (typeof value === 'string') return parseUsdAmount(value).pips;
	return 0n;
}

/** A decimal the API returned, exactly, as signed pips; undefined (never rounded) when it is not whole pips in the safe range. */
export function exactPips(value: unknown): bigint | undefined {
	const text = typeof value === 'number' && Number.isFinite(value) ? numberToPlainText(value) : typeof value === 'string' ? value.trim() : undefined;
	const match = text === undefined ? null : /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
	if (!match) return undefined;
	const fraction = (match[3] ?? '').replace(/0+$/, '');
	if (fraction.length > 4) return undefined;
	const pips = BigInt(match[2]) * PIPS_PER_USD + BigInt(fraction.padEnd(4, '0') || '0');
	if (!Number.isSafeInteger(Number(pips))) return undefined;
	return match[1] ? -pips : pips;
}

/** Signed pips as the JSON number whose decimal text they are (exact: at most 4 places, safe range). */
export function pipsValue(pips: bigint): number {
	const sign = pips < 0n ? '-' : '';
	const size = pips < 0n ? -pips : pips;
	const fraction = (size % PIPS_PER_USD).toString().padStart(4, '0').replace(/0+$/, '');
	return Number(`${sign}${size / PIPS_PER_USD}${fraction ? `.${fraction}` : ''}`);
}

/**
 * The text to write instead of an amount with grouping or a decimal comma ("1,250.00" → 1250.00), both
 * readings when its form does not tell ("1,250"). Only a suggestion: the amount is still refused.
 */
function plainFix(text: string): string {
	const grouped = /^(\d{1,3})((?:[,'\u2019\s\u00a0\u2009\u202f]\d{3})+)(\.\d+)?$/.exec(text);
	if (grouped && (grouped[3] !== undefined || !text.includes(','))) return text.replace(/[,'\u2019\s\u00a0\u2009\u202f]/g, '');
	const european = /^(\d{1,3})((?:\.\d{3})+),(\d+)$/.exec(text);
	if (european) return `${european[1]}${european[2].replace(/\./g, '')}.${european[3]}`;
	if (grouped) {
		const digits = text.replace(/,/g, '');
		return `${digits} if the comma groups thousands, or ${text.replace(',', '.')} if it marks the decimals`;
	}
	if (/^\d+,\d{1,2}$/.test(text)) return text.replace(',', '.');
	return '';
}

/** For too many decimals: a number computed in floating point (88.55000000000001) is most often cents with an error. */
function roundingHint(input: unknown, whole: string, fraction: string): string {
	const computed = typeof input === 'number' || /^\d+\.\d*(0{6,}|9{6,})\d$/.test(String(input).trim());
	if (!computed) return '';
	const cents = (Math.round(Number(`${whole}.${fraction}`) * 100) / 100).toFixed(2);
	return `: round it to cents where it is computed (${cents}), e.g. with .toFixed(2) in the expression or column that makes it`;
}

/** Why a text is not plain decimal: "1,000" is a thousand in one locale and one in another, so it is never guessed. */
function notPlainDecimal(text: string): string | undefined {
	if (text.includes('_')) return 'no underscores';
	if (/^[+-]?(\d+\.?\d*|\.\d+)e[+-]?\d+$/i.test(text)) return 'no exponent (e notation)';
	if (/[,'\u2019\s\u00a0\u2009\u202f]/.test(text) || (text.match(/\./g) ?? []).length > 1) {
		return 'no thousands separators, spaces or decimal commas (one dot for decimals, no grouping)';
	}
	return undefined;
}

/** Decimal text of a number without exponent notation (1e-7 → "0.0000001"). */
function numberToPlainText(n: number): string {
	const text = String(n);
	if (!/e/i.test(text)) return text;
	const [mantissa, exponentText] = text.toLowerCase().split('e');
	const exponent = Number(exponentText);
	const negative = mantissa.startsWith('-');
	const digits = mantissa.replace('-', '').replace('.', '');
	const pointAt = (mantissa.replace('-', '').split('.')[0] ?? '').length + exponent;
	let plain: string;
	if (pointAt <= 0) plain = `0.${'0'.repeat(-pointAt)}${digits}`;
	else if (pointAt >= digits.length) plain = digits + '0'.repeat(pointAt - digits.length);
	else plain = `${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
	return negative ? `-${plain}` : plain;
}
