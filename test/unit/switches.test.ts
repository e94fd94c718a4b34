/** The fail-closed reading of the boolean options that guard money or events (nodes/shared/switches.ts). */
import { FieldError } from '../../nodes/shared/fieldError';
import { readSwitch } from '../../nodes/shared/switches';

const read = (value: unknown, kind: 'guard' | 'exemption', fallback = false) => readSwitch('={{ x }}', value, fallback, 'Dry Run', kind);

test.each([true, 'true', 'TRUE', 'True', 1, '1', ' 1 '])('%p is on for a guard and for an exemption', (value) => {
	expect(read(value, 'guard')).toBe(true);
	expect(read(value, 'exemption')).toBe(true);
});

test('only a real false turns a guard off; an exemption is also off for "false", 0 and "0"', () => {
	expect(read(false, 'guard')).toBe(false);
	for (const value of [false, 'false', 'FALSE', 0, '0']) expect(read(value, 'exemption')).toBe(false);
});

test.each(['false', 'False', 0, '0'])('%p is refused for a guard, naming the field and the value', (value) => {
	expect(() => read(value, 'guard')).toThrow(FieldError);
	expect(() => read(value, 'guard')).toThrow(/^Dry Run: must be true or false, and only a real false turns it off \(got /);
});

test.each([
	['yes', 'the text "yes"'],
	['on', 'the text "on"'],
	['', 'the text ""'],
	[' true ', 'the text " true "'],
	[2, 'number 2'],
	[null, 'object null'],
	[undefined, 'nothing (the expression gave no value)'],
	[{}, 'object {}'],
])('%p is refused for both kinds (%s)', (value, shown) => {
	for (const kind of ['guard', 'exemption'] as const) expect(() => read(value, kind)).toThrow(`(got ${shown})`);
});

test('a switch the node does not hold takes its default, whatever n8n resolved', () => {
	expect(readSwitch(undefined, 'garbage', true, 'Drop Duplicate Deliveries', 'guard')).toBe(true);
	expect(readSwitch(undefined, undefined, false, 'Emit Test Pings', 'exemption')).toBe(false);
});
