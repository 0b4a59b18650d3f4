// Separate hosts on one machine: each validator in a network namespace of its own (`ip netns`), with
// a veth pair to a bridge in the root namespace (10.77.<net>.i/24, the bridge .254). Its p2p links run
// through a delaying TCP proxy on the bridge (test/support/delay-proxy.ts: latency with jitter, a
// cut for partitions), and nftables in each namespace drops a share of the packets it receives.
// Root is needed (CI runs as root); nftables is installed with apt-get when `nft` is missing.
import { spawnSync } from 'node:child_process';

function sh(cmd: string, args: string[], allowFail = false): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0 && !allowFail) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** Installs nftables (Debian's package) when `nft` is missing. */
export function ensureNftables(): void {
  if (spawnSync('sh', ['-c', 'command -v nft'], { stdio: 'ignore' }).status === 0) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'nftables']]) {
    const r = spawnSync('apt-get', args, { encoding: 'utf8', env });
    if (r.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed: ${r.stderr}`);
  }
}

export interface Host {
  /** Namespace name. */
  ns: string;
  /** Its address on the bridge. */
  address: string;
}

export interface Hosts {
  hosts: Host[];
  /** The bridge's address in the root namespace, where the proxies listen. */
  gateway: string;
  /** Drops `percent` of the TCP packets each namespace receives (0 removes the rule). */
  setLoss(percent: number): void;
  /** Removes the namespaces, veths and the bridge. */
  dispose(): void;
}

/** Creates `count` namespaces on a new bridge; `net` (1..250) picks the /24, so runs can sit side by side. */
export function createHosts(count: number, net: number): Hosts {
  const tag = `svc${net}`;
  const bridge = `${tag}br`;
  const gateway = `10.77.${net}.254`;
  const hosts: Host[] = [];
  const dispose = (): void => {
    for (let i = 0; i < count; i++) sh('ip', ['netns', 'del', `${tag}n${i}`], true);
    sh('ip', ['link', 'del', bridge], true);
  };
  dispose();
  try {
    sh('ip', ['link', 'add', bridge, 'type', 'bridge']);
    sh('ip', ['addr', 'add', `${gateway}/24`, 'dev', bridge]);
    sh('ip', ['link', 'set', bridge, 'up']);
    for (let i = 0; i < count; i++) {
      const ns = `${tag}n${i}`;
      const outer = `${tag}h${i}`;
      const address = `10.77.${net}.${i + 1}`;
      sh('ip', ['netns', 'add', ns]);
      sh('ip', ['link', 'add', outer, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
      sh('ip', ['link', 'set', outer, 'master', bridge]);
      sh('ip', ['link', 'set', outer, 'up']);
      sh('ip', ['-n', ns, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
      sh('ip', ['-n', ns, 'link', 'set', 'eth0', 'up']);
      sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
      sh('ip', ['-n', ns, 'route', 'add', 'default', 'via', gateway]);
      hosts.push({ ns, address });
    }
  } catch (err) {
    dispose();
    throw err;
  }
  return {
    hosts,
    gateway,
    setLoss(percent: number) {
      for (const { ns } of hosts) {
        sh('ip', ['netns', 'exec', ns, 'nft', 'delete', 'table', 'inet', 'svcloss'], true);
        if (percent <= 0) continue;
        const rules = [
          'table inet svcloss {',
          '  chain input {',
          '    type filter hook input priority 0; policy accept;',
          `    iifname "eth0" meta l4proto tcp numgen random mod 1000 < ${Math.round(percent * 10)} drop`,
          '  }',
          '}',
        ].join('\n');
        const r = spawnSync('ip', ['netns', 'exec', ns, 'nft', '-f', '-'], { input: rules, encoding: 'utf8' });
        if (r.status !== 0) throw new Error(`nft in ${ns} failed: ${r.stderr}`);
      }
    },
    dispose,
  };
}
