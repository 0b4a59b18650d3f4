// Token <-> share conversion. Every rounding favours the shares that stay in the validator, so a
// delegation's value can never grow through rounding at the expense of the others:
//   deposit:     shares minted = floor(amount * totalShares / tokens)   (1:1 for an empty validator)
//   valuation:   tokens worth  = floor(shares * tokens / totalShares)
//   withdrawal:  shares burned = ceil(amount * totalShares / tokens)

/** Shares minted for a deposit of `amount` tokens. */
export function sharesForDeposit(amount: bigint, tokens: bigint, totalShares: bigint): bigint {
  if (totalShares === 0n) return amount;
  if (tokens === 0n) return 0n;
  return (amount * totalShares) / tokens;
}

/** Tokens that `shares` are worth. */
export function tokensForShares(shares: bigint, tokens: bigint, totalShares: bigint): bigint {
  if (totalShares === 0n) return 0n;
  return (shares * tokens) / totalShares;
}

/** Shares that must be burned to take `amount` tokens out (tokens > 0). */
export function sharesForWithdrawal(amount: bigint, tokens: bigint, totalShares: bigint): bigint {
  return ceilDiv(amount * totalShares, tokens);
}

/** Ceiling of a / b for a >= 0, b > 0. */
export function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
