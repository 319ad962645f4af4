#!/usr/bin/env bash
# A fresh account on a local stack, with an API token, for the documents'
# examples: creates the account with the operator CLI (pro plan, 10 USD, so
# it may mint tokens), signs in (the browser session) and mints a 2-hour token,
# then prints shell assignments of EMAIL, PASSWORD, ACCOUNT and TOKEN:
#
#   eval "$(bash docs/examples/new-account.sh http://127.0.0.1:3000)"
#
# The argument is the service root (default $BASE_URL, else
# http://127.0.0.1:3000). The operator CLI finds the running `npm start` (or
# the table DYNAMODB_ENDPOINT / TABLE_NAME name). docs/api/tokens-and-auth.md
# shows each step. Needs curl and jq.
set -euo pipefail
BASE=${1:-${BASE_URL:-http://127.0.0.1:3000}}
cd "$(dirname "$0")/../.."

EMAIL=user-$(date +%s)-$RANDOM@example.com
PASSWORD='a long passphrase'
ACCOUNT=$(npm run --silent admin -- account:create --email "$EMAIL" --password "$PASSWORD" --balance-usd 10 | jq -er .account_id)
# The session cookie is `Secure`, which curl's jar may not keep on plain http://: take it from Set-Cookie.
SESSION=$(curl -si -X POST "$BASE/v1/auth/login" -H 'content-type: application/json' \
  -d "{\"email\":\"$EMAIL\",\"password\":\"$PASSWORD\"}" | sed -n 's/^[Ss]et-[Cc]ookie: session=\([^;]*\).*/\1/p')
TOKEN=$(curl -s -X POST "$BASE/v1/api-tokens" -H "Cookie: session=$SESSION" -H 'content-type: application/json' \
  -d '{"name":"docs","duration_minutes":120}' | jq -er .token)
printf 'EMAIL=%q PASSWORD=%q ACCOUNT=%q TOKEN=%q\n' "$EMAIL" "$PASSWORD" "$ACCOUNT" "$TOKEN"
