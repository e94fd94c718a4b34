/**
 * The sandbox command's flags (sandbox/cli.ts): one table read by the parser, printed by --help and
 * copied into the package README. The process-level behaviour (exit codes, signals) is in cli.test.ts
 * and package.test.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMMAND, FLAGS, helpText, parseCli } from '../../sandbox/cli';

const options = (argv: string[]) => {
	const parsed = parseCli(argv);
	if (parsed.help) throw new Error('asked for the help');
	return parsed.options;
};

describe('sandbox command flags', () => {
	it('starts on 4010/4011 with nothing else set when given no flag', () => {
		expect(options([])).toEqual({ port: 4010, rewardsPort: 4011 });
	});

	it('takes every flag in both forms, --flag value and --flag=value', () => {
		const argv = [
			'--port',
			'0',
			'--rewards-port=4021',
			'--host',
			'0.0.0.0',
			'--api-key',
			'sk_x',
			'--seed=empty',
			'--data-file',
			'state.json',
			'--time-scale',
			'60',
			'--allow-loopback-webhooks=5678,5679',
			'--public-host',
			'host.docker.internal,[FD00::1]',
			'--resolve-webhook-hosts',
			'--log',
		];
		expect(options(argv)).toEqual({
			port: 0,
			rewardsPort: 4021,
			host: '0.0.0.0',
			apiKey: 'sk_x',
			seed: 'empty',
			dataFile: 'state.json',
			timeScale: 60,
			allowLoopbackWebhooks: [5678, 5679],
			publicHosts: ['host.docker.internal', '[fd00::1]'],
			resolveWebhookHosts: true,
			log: true,
		});
	});

	it.each(['--api-key', '--data-file', '--port', '--host', '--seed', '--time-scale', '--rewards-port', '--public-host'])(
		'refuses %s given last without its value (it would start with the default instead)',
		(flag) => {
			expect(() => parseCli(['--log', flag])).toThrow(`${flag} needs a value`);
			expect(() => parseCli([`${flag}=`])).toThrow(`${flag} needs a value`);
		},
	);

	it('refuses --allow-loopback-webhooks without its ports (it used to admit every local port), naming the new form', () => {
		const says = "--allow-loopback-webhooks takes the ports it admits: --allow-loopback-webhooks=5678 (n8n's port; several: =5678,5679)";
		expect(() => parseCli(['--allow-loopback-webhooks'])).toThrow(says);
		expect(() => parseCli(['--allow-loopback-webhooks', '--log'])).toThrow(says);
		expect(() => parseCli(['--allow-loopback-webhooks='])).toThrow(says);
	});

	it('refuses loopback webhook ports and public host names that do not fit, naming the flag', () => {
		for (const bad of ['0', '65536', 'n8n', '5678,', '5678;5679', ' 5678'])
			expect(() => parseCli([`--allow-loopback-webhooks=${bad}`])).toThrow('--allow-loopback-webhooks must be a port number from 1 to 65535');
		for (const bad of ['http://host.docker.internal', 'host.docker.internal:4010', 'a,,b'])
			expect(() => parseCli(['--public-host', bad])).toThrow('--public-host takes a host name or an IP address without scheme or port');
	});

	it('refuses a value flag followed by another flag instead of its value', () => {
		expect(() => parseCli(['--api-key', '--data-file', 'x.json'])).toThrow('--api-key needs a value');
	});

	it('refuses unknown flags, stray words and values given to switches, naming them', () => {
		expect(() => parseCli(['--nope'])).toThrow('unknown flag --nope');
		expect(() => parseCli(['-x'])).toThrow('unknown flag -x');
		expect(() => parseCli(['--port', '4010', 'extra'])).toThrow('unexpected argument extra');
		expect(() => parseCli(['--log=yes'])).toThrow('--log takes no value');
	});

	it('refuses values that do not fit, naming the flag', () => {
		expect(() => parseCli(['--port', '65536'])).toThrow('--port must be a port number');
		expect(() => parseCli(['--rewards-port', 'abc'])).toThrow('--rewards-port must be a port number');
		expect(() => parseCli(['--seed', 'full'])).toThrow('--seed must be demo or empty, not "full"');
		expect(() => parseCli(['--time-scale', '0'])).toThrow('--time-scale must be a positive number');
		expect(() => parseCli(['--time-scale', 'fast'])).toThrow('--time-scale must be a positive number');
	});

	it('answers --help and -h with the help, whatever else is given', () => {
		expect(parseCli(['--help'])).toEqual({ help: true });
		expect(parseCli(['--port', '1', '-h'])).toEqual({ help: true });
	});

	it('--help names the npx command and every flag of the table with its default', () => {
		const help = helpText();
		expect(help.split('\n')[0]).toBe(`Usage: ${COMMAND} [flags]`);
		for (const flag of FLAGS) {
			expect(help).toContain(`--${flag.name}${flag.value ? ` ${flag.value}` : ''}`);
			if (flag.default !== undefined) expect(help.replace(/\s+/g, ' ')).toContain(`(default: ${flag.default})`);
		}
		expect(help).toContain('--log');
	});

	it("the package README shows --help's text as it is", () => {
		const readme = fs.readFileSync(path.resolve(__dirname, '../../sandbox/README.md'), 'utf8');
		const block = /<!-- help: begin[^>]*-->\n```\n([\s\S]*?)```\n<!-- help: end -->/.exec(readme);
		expect(block?.[1]).toBe(helpText());
	});

	it('the package README states the Node.js version that its engines field requires', () => {
		const readme = fs.readFileSync(path.resolve(__dirname, '../../sandbox/README.md'), 'utf8');
		const engines = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../sandbox/package.json'), 'utf8')).engines.node;
		expect(engines).toMatch(/^>=\d+\.\d+\.\d+$/);
		expect(readme).toContain(`Node.js ${engines.slice(2)} or newer`);
		expect(readme.match(/Node(\.js)? \d+/g)).toEqual([`Node.js ${engines.slice(2).split('.')[0]}`]);
	});
});
