import { fromPips, parseUsdAmount, toPips } from '../../nodes/shared/amounts';
import { FieldError } from '../../nodes/shared/fieldError';

describe('parseUsdAmount', () => {
	test.each([
		['125.5', 1_255_000n, '125.5', 125.5],
		['0.0001', 1n, '0.0001', 0.0001],
		['1000000', 10_000_000_000n, '1000000', 1_000_000],
		[' 42.1000 ', 421_000n, '42.1', 42.1],
		['.25', 2_500n, '0.25', 0.25],
		['+3', 30_000n, '3', 3],
	])('reads the text %p exactly', (input, pips, text, value) => {
		expect(parseUsdAmount(input)).toEqual({ pips, text, value });
	});

	test.each([
		[0.1, 1_000n],
		[19.99, 199_900n],
		[1e-4, 1n],
		[123456.7891, 1_234_567_891n],
	])('reads the number %p exactly', (input, pips) => {
		expect(parseUsdAmount(input).pips).toBe(pips);
	});

	test('refuses float drift instead of rounding it away', () => {
		expect(() => parseUsdAmount(0.1 + 0.2)).toThrow(/at most 4 decimal places/);
		expect(() => parseUsdAmount(1e-7)).toThrow(/at most 4 decimal places/);
	});

	test.each([
		['1,250.00', 'must be plain decimal text: write 1250.00 (got "1,250.00"; no thousands separators, spaces or decimal commas)'],
		['12,50', 'write 12.50 (got "12,50"'],
		['1.250,75', 'write 1250.75 (got "1.250,75"'],
		["1'000", 'write 1000 (got'],
		['1\u202f000.5', 'write 1000.5 (got'],
		// A comma without decimals may group thousands or mark decimals: both readings are given, neither is taken.
		['1,250', 'write 1250 if the comma groups thousands, or 1.250 if it marks the decimals (got "1,250"'],
	])('refuses %p with the exact text to write instead', (input, fix) => {
		expect(() => parseUsdAmount(input, 'Amount (USD)')).toThrow(fix);
	});

	test.each([
		[88.55000000000001, '88.55000000000001', '88.55'],
		['88.55000000000001', '88.55000000000001', '88.55'],
		[0.1 + 0.2, '0.30000000000000004', '0.30'],
		['19.989999999999998', '19.989999999999998', '19.99'],
	])('refuses the float %p with the rounding to make', (input, got, cents) => {
		expect(() => parseUsdAmount(input, 'Amount (USD)')).toThrow(
			`must have at most 4 decimal places, i.e. whole hundredths of a cent (got "${got}"): round it to cents where it is computed (${cents})`,
		);
	});

	test('an amount with more decimals typed on purpose gets no rounding hint (which rounding is meant is not guessed)', () => {
		expect(() => parseUsdAmount('1.23456', 'Amount (USD)')).toThrow(/\(got "1\.23456"\)$/);
	});

	test.each([
		['0', 'must be greater than 0'],
		['0.00001', 'at most 4 decimal places'],
		['-5', 'must be greater than 0'],
		['12.34567', 'at most 4 decimal places'],
		['abc', 'plain decimal number'],
		// Refused, not guessed ("1_000.01" would otherwise read as 1000.01, "1__0.0_5" as 10.05):
		['1_000.01', 'must be plain decimal text such as 1250.50: no underscores (got "1_000.01")'],
		['1__0.0_5', 'no underscores'],
		['1e3', 'no exponent (e notation) (got "1e3")'],
		['2.5E-2', 'no exponent'],
		['1,000.00', 'no thousands separators, spaces or decimal commas'],
		['12,50', 'no thousands separators, spaces or decimal commas'],
		["1'000", 'no thousands separators'],
		['1 000', 'no thousands separators'],
		['1\u00a0000,5', 'no thousands separators'],
		['1.000.000', 'no thousands separators'],
		['0x10', 'plain decimal number'],
		['١٢٣', 'plain decimal number'],
		['Infinity', 'plain decimal number'],
		['', 'is required'],
		[undefined, 'is required'],
		[Number.NaN, 'finite'],
		[Number.POSITIVE_INFINITY, 'finite'],
	])('refuses %p with a message naming the field and the rule', (input, rule) => {
		let error: unknown;
		try {
			parseUsdAmount(input, 'Amount (USD)');
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(FieldError);
		expect((error as FieldError).message).toMatch(/^Amount \(USD\): /);
		expect((error as FieldError).message).toContain(rule);
		expect((error as FieldError).field).toBe('Amount (USD)');
	});

	test('the number sent serialises to exactly the canonical text', () => {
		for (const text of ['0.0001', '0.3', '1.1', '9999999.9999', '0.0007', '100.01']) {
			const amount = parseUsdAmount(text);
			expect(JSON.stringify({ amountUsd: amount.value })).toBe(`{"amountUsd":${amount.text}}`);
		}
	});

	test('sums in pips have no drift', () => {
		const total = ['0.1', '0.2', '0.0003'].map((t) => parseUsdAmount(t).pips).reduce((a, b) => a + b, 0n);
		expect(fromPips(total).text).toBe('0.3003');
	});

	test('refuses amounts too large to send exactly', () => {
		expect(() => parseUsdAmount('99999999999999.9999')).toThrow(/too large/);
	});
});

describe('toPips', () => {
	test('reads numbers the API returns', () => {
		expect(toPips(12.5)).toBe(125_000n);
		expect(toPips(0.0001)).toBe(1n);
		expect(toPips(-2)).toBe(-20_000n);
		expect(toPips(undefined)).toBe(0n);
	});
});
