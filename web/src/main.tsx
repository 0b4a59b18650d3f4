// The explorer's web page: a header with navigation and search, and the page of the current URL.
import { render } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import './style.css';
import { restoreSession, useSession } from './auth.js';
import { interceptLinks, match, useLocation } from './router.js';
import { Account } from './pages/account.js';
import { Address } from './pages/address.js';
import { Block } from './pages/block.js';
import { Compute, ComputeMiner, ComputeProof, ComputeTask } from './pages/compute.js';
import { Contract } from './pages/contract.js';
import { Home } from './pages/home.js';
import { Blocks, Tokens, Transactions } from './pages/lists.js';
import { Bridge, BridgeDepositPage, BridgeWithdrawalPage } from './pages/bridge.js';
import { Governance, ProposalPage, Treasury } from './pages/governance.js';
import { Epoch, GasOracle, Miners, Validator, Validators } from './pages/network.js';
import { SearchForm, SearchResults } from './pages/search.js';
import { Token } from './pages/token.js';
import { Tx } from './pages/tx.js';
import { UserOperation, UserOperations } from './pages/user-operations.js';
import { ConnectButton } from './wallet/actions.js';

const NAV: [string, string][] = [
  ['/', 'Home'],
  ['/blocks', 'Blocks'],
  ['/txs', 'Transactions'],
  ['/tokens', 'Tokens'],
  ['/validators', 'Validators'],
  ['/miners', 'Miners'],
  ['/compute', 'Compute'],
  ['/user-operations', 'User ops'],
  ['/epoch', 'Epoch'],
  ['/gas', 'Gas'],
  ['/governance', 'Governance'],
  ['/bridge', 'Bridge'],
];

function Page({ path, query }: { path: string; query: URLSearchParams }) {
  const cursor = query.get('cursor');
  let m: Record<string, string> | null;
  if (path === '/') return <Home />;
  if (path === '/blocks') return <Blocks cursor={cursor} />;
  if (path === '/txs') return <Transactions cursor={cursor} />;
  if (path === '/tokens') return <Tokens cursor={cursor} />;
  if (path === '/validators') return <Validators />;
  if (path === '/miners') return <Miners />;
  if (path === '/epoch') return <Epoch />;
  if (path === '/gas') return <GasOracle />;
  if (path === '/governance') return <Governance cursor={cursor} />;
  if (path === '/treasury') return <Treasury />;
  if (path === '/bridge') return <Bridge depositsCursor={query.get('deposits')} withdrawalsCursor={query.get('withdrawals')} />;
  if (path === '/compute') return <Compute proofsCursor={query.get('proofs')} tasksCursor={query.get('tasks')} />;
  if (path === '/user-operations') return <UserOperations cursor={cursor} />;
  if (path === '/account') return <Account />;
  if (path === '/search') return <SearchResults q={query.get('q') ?? ''} />;
  if ((m = match('/block/:id', path))) return <Block key={m['id']} id={m['id']!} />;
  if ((m = match('/tx/:hash', path))) return <Tx key={m['hash']} hash={m['hash']!} />;
  if ((m = match('/address/:address', path))) return <Address key={m['address']} address={m['address']!} cursor={cursor} opsCursor={query.get('ops')} />;
  if ((m = match('/compute/task/:id', path))) return <ComputeTask key={m['id']} id={m['id']!} />;
  if ((m = match('/compute/proof/:id', path))) return <ComputeProof key={m['id']} id={m['id']!} />;
  if ((m = match('/compute/miner/:address', path))) return <ComputeMiner key={m['address']} address={m['address']!} cursor={cursor} />;
  if ((m = match('/user-operations/:hash', path))) return <UserOperation key={m['hash']} hash={m['hash']!} />;
  if ((m = match('/token/:address', path))) return <Token key={m['address']} address={m['address']!} cursor={cursor} />;
  if ((m = match('/contract/:address', path))) return <Contract key={m['address']} address={m['address']!} />;
  if ((m = match('/governance/proposals/:id', path))) return <ProposalPage key={m['id']} id={m['id']!} votesCursor={query.get('votes')} depositsCursor={query.get('deposits')} />;
  if ((m = match('/bridge/deposits/:nonce', path))) return <BridgeDepositPage key={m['nonce']} nonce={m['nonce']!} />;
  if ((m = match('/bridge/withdrawals/:id', path))) return <BridgeWithdrawalPage key={m['id']} id={m['id']!} />;
  if ((m = match('/validator/:address', path))) return <Validator key={m['address']} address={m['address']!} />;
  return (
    <>
      <h1>Not found</h1>
      <p>
        No page at <span class="mono">{path}</span>. <a href="/">Home</a>
      </p>
    </>
  );
}

function App() {
  const { path, query } = useLocation();
  const session = useSession();
  const first = useRef(true);
  useEffect(() => {
    document.title = path === '/' ? 'svc explorer' : `${path.split('/')[1]} · svc explorer`;
    // After a client-side move, keyboard and screen-reader users start at the new page's content.
    if (!first.current) document.getElementById('main')?.focus({ preventScroll: true });
    first.current = false;
  }, [path]);
  const current = (href: string) => (href === '/' ? path === '/' : path.startsWith(href)) ? 'page' : undefined;
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header>
        <a class="brand" href="/">svc explorer</a>
        <nav aria-label="main">
          {NAV.map(([href, label]) => (
            <a key={href} href={href} aria-current={current(href)}>
              {label}
            </a>
          ))}
          <a href="/account" aria-current={current('/account')}>{session ? 'Account' : 'Sign in'}</a>
        </nav>
        <SearchForm />
        <ConnectButton />
      </header>
      <main id="main" tabIndex={-1}>
        <Page key={path} path={path} query={query} />
      </main>
      <footer class="muted">
        API: <a href="/api/v1/openapi.json">/api/v1</a>
      </footer>
    </>
  );
}

interceptLinks();
void restoreSession().finally(() => render(<App />, document.getElementById('app')!));
