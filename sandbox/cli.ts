/**
 * The sandbox command's flags: ONE table (FLAGS) that `node:util` parseArgs reads, that `--help` prints
 * and that the package README lists. A flag that takes a value refuses to go without one, and an unknown
 * flag is refused, both with a message naming the flag (a silently dropped `--api-key` would start the
 * sandbox with the public demo key; a dropped `--data-file`, without persistence).
 */
import { parseArgs } from 'node:util';
import { publicHostName } from './edge';
import type { SandboxOptions } from './server';
import { DEMO_API_KEY } from './state';

/** What users type: the package's bin through npx. */
export const COMMAND = 'npx n8n-nodes-clearinghouse-sandbox';

export interface Flag {
	/** The long name, without `--`. */
	name: string;
	short?: string;
	/** A flag that takes a value: the value's name in the help (`--port PORT`). Absent: an on/off switch. */
	value?: string;
	/** The default, as the help states it. */
	default?: string;
	help: string;
	/** What to say when the value is missing, when it needs more than "needs a value". */
	missing?: string;
	/** Writes the flag into the options; throws a message naming the flag when the value does not fit. */
	set(o: SandboxOptions, value: string | true): void;
}

function port(flag: string, v: string, min = 0): number {
	const n = /^\d{1,5}$/.test(v) ? Number(v) : NaN;
	if (!(n >= min && n <= 65535)) throw new Error(`--${flag} must be a port number from ${min} to 65535${min === 0 ? ' (0: any free port)' : ''}, not "${v}"`);
	return n;
}

export const FLAGS: Flag[] = [
	{
		name: 'port',
		value: 'PORT',
		default: '4010',
		help: 'port of the main API, the browser console and the operator API (0: any free port)',
		set: (o, v) => (o.port = port('port', v as string)),
	},
	{
		name: 'rewards-port',
		value: 'PORT',
		default: '4011',
		help: 'port of the rewards API (0: any free port)',
		set: (o, v) => (o.rewardsPort = port('rewards-port', v as string)),
	},
	{
		name: 'host',
		value: 'ADDRESS',
		default: '127.0.0.1',
		help: 'address both ports listen on; 0.0.0.0: every interface (n8n in Docker), which exposes the API and its public demo key to whoever reaches the port',
		set: (o, v) => (o.host = v as string),
	},
	{
		name: 'public-host',
		value: 'NAMES',
		default: 'none: 127.0.0.1, localhost, [::1] and the --host address only',
		help: 'more host names both servers answer, comma-separated (any other Host header gets 421), e.g. host.docker.internal for n8n in Docker',
		set: (o, v) => (o.publicHosts = (v as string).split(',').map((name) => publicHostName(name))),
	},
	{
		name: 'api-key',
		value: 'KEY',
		default: DEMO_API_KEY,
		help: 'the API key the sandbox accepts (the demo seed adds a subaccount key of its own)',
		set: (o, v) => (o.apiKey = v as string),
	},
	{
		name: 'seed',
		value: 'demo|empty',
		default: 'demo',
		help: 'demo: an account with users alice and bob, wallets and a subaccount; empty: the account alone',
		set: (o, v) => {
			if (v !== 'demo' && v !== 'empty') throw new Error(`--seed must be demo or empty, not "${v}"`);
			o.seed = v;
		},
	},
	{
		name: 'data-file',
		value: 'PATH',
		default: 'none: the state is lost at exit',
		help: 'loads the state from PATH at start (when it exists) and saves it there at exit',
		set: (o, v) => (o.dataFile = v as string),
	},
	{
		name: 'time-scale',
		value: 'N',
		default: '1',
		help: "divides every wait the service chooses (confirmations, settlement, webhook retries), e.g. 60: a minute's wait takes a second",
		set: (o, v) => {
			const n = Number(v);
			if (!(v !== '' && n > 0 && Number.isFinite(n))) throw new Error(`--time-scale must be a positive number, not "${v}"`);
			o.timeScale = n;
		},
	},
	{
		name: 'allow-loopback-webhooks',
		value: 'PORTS',
		default: 'off: loopback URLs are refused',
		help: 'accepts webhook endpoints on 127.0.0.1, localhost and [::1] (http or https) on these ports only, comma-separated, e.g. 5678: an n8n on this machine',
		missing:
			"--allow-loopback-webhooks takes the ports it admits: --allow-loopback-webhooks=5678 (n8n's port; several: =5678,5679). It no longer admits every local port",
		set: (o, v) => (o.allowLoopbackWebhooks = (v as string).split(',').map((p) => port('allow-loopback-webhooks', p, 1))),
	},
	{
		name: 'resolve-webhook-hosts',
		default: 'off',
		help: "resolves a webhook endpoint's host name when it is registered and refuses it unless every address is public (needs DNS)",
		set: (o) => (o.resolveWebhookHosts = true),
	},
	{
		name: 'log',
		default: 'off',
		help: 'writes unexpected errors (a failed save, a scheduled task that threw) and refused Host headers to stderr',
		set: (o) => (o.log = true),
	},
	{
		name: 'help',
		short: 'h',
		help: 'prints this help and exits',
		set: () => undefined,
	},
];

/** The parsed command line: the options for startSandbox, or a request for the help. */
export type Parsed = { help: true } | { help: false; options: SandboxOptions };

/** Parses argv (without node and the script) against FLAGS; throws a message naming the flag at fault. */
export function parseCli(argv: string[]): Parsed {
	let values: Record<string, string | boolean | undefined>;
	try {
		({ values } = parseArgs({
			args: argv,
			strict: true,
			allowPositionals: false,
			options: Object.fromEntries(FLAGS.map((f) => [f.name, { type: f.value ? 'string' : 'boolean', ...(f.short ? { short: f.short } : {}) }])),
		}));
	} catch (e) {
		throw new Error(sayParseError(e as Error & { code?: string }, argv));
	}
	if (values.help) return { help: true };
	const options: SandboxOptions = { port: 4010, rewardsPort: 4011 };
	for (const flag of FLAGS) {
		const v = values[flag.name];
		if (v === '') throw new Error(needsValue(flag)); // --api-key= would otherwise mean the demo key
		if (v !== undefined && v !== false) flag.set(options, v);
	}
	return { help: false, options };
}

function needsValue(f: Flag): string {
	if (f.missing) return f.missing;
	return `--${f.name} needs a value: --${f.name} ${f.value} (one that starts with - goes as --${f.name}=-…)`;
}

/** parseArgs's errors in the words of this command (its own are phrased for a developer). */
function sayParseError(e: Error & { code?: string }, argv: string[]): string {
	const flag = /'(-[^' ]+)/.exec(e.message)?.[1];
	const known = FLAGS.find((f) => flag === `--${f.name}` || flag === `-${f.short}`);
	switch (e.code) {
		case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
			return `unknown flag ${flag ?? e.message}`;
		case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
			return `unexpected argument ${/'([^']*)'/.exec(e.message)?.[1] ?? e.message}: every value follows its flag (--port 4010 or --port=4010)`;
		case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
			if (known?.value) return needsValue(known);
			if (known) return `--${known.name} takes no value`;
	}
	return `${e.message} (${argv.join(' ')})`;
}

/** Words into lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
	const lines: string[] = [];
	for (const word of text.split(' ')) {
		const last = lines.length - 1;
		if (last >= 0 && lines[last].length + 1 + word.length <= width) lines[last] += ` ${word}`;
		else lines.push(word);
	}
	return lines;
}

/** The help: the command, then every flag of FLAGS with what it does and its default. */
export function helpText(): string {
	const left = (f: Flag) => `${f.short ? `-${f.short}, ` : '    '}--${f.name}${f.value ? ` ${f.value}` : ''}`;
	const width = Math.max(...FLAGS.map((f) => left(f).length)) + 2;
	const lines = FLAGS.flatMap((f) => {
		const text = f.default === undefined ? f.help : `${f.help} (default: ${f.default})`;
		return wrap(text, 100 - 2 - width).map((line, i) => `  ${(i === 0 ? left(f) : '').padEnd(width)}${line}`);
	});
	return [
		`Usage: ${COMMAND} [flags]`,
		'',
		'A local sandbox of the stablecoin clearinghouse API for n8n-nodes-clearinghouse: no real money moves.',
		"It prints CLEARINGHOUSE_BASE_URL, CLEARINGHOUSE_REWARDS_URL and CLEARINGHOUSE_API_KEY (the credential's",
		'values), then SANDBOX_READY, and serves until Ctrl-C or SIGTERM, or until the npx that started it ends.',
		'',
		'Flags:',
		...lines,
		'',
		'Examples:',
		`  ${COMMAND} --port 4020 --rewards-port 4021`,
		`  ${COMMAND} --data-file ./sandbox-state.json --allow-loopback-webhooks=5678`,
		`  ${COMMAND} --host 0.0.0.0 --public-host host.docker.internal --allow-loopback-webhooks=5678`,
		'',
	].join('\n');
}
