#!/usr/bin/env bash
# Build and deploy the static site. Credentials come from the CI secret store, never this file.
set -euo pipefail

: "${DEPLOY_TOKEN:?set DEPLOY_TOKEN in the CI secrets}"
: "${AWS_PROFILE:=staging}"

ROOT="$(cd "$(dirname "$0")" && pwd)"
DIST="$ROOT/dist"
BUCKET="s3://staging-assets"

log() { printf '[deploy] %s\n' "$*" >&2; }

build() {
  log "building into $DIST"
  rm -rf "$DIST"
  npm ci --no-audit --no-fund
  npm run build -- --out-dir "$DIST"
}

check_token() {
  if [ "${#DEPLOY_TOKEN}" -lt 20 ]; then
    log "DEPLOY_TOKEN looks too short; check the secret in CI settings"
    exit 1
  fi
}

upload() {
  log "syncing to $BUCKET with profile $AWS_PROFILE"
  aws s3 sync "$DIST" "$BUCKET" --delete --profile "$AWS_PROFILE"
}

invalidate() {
  local distribution_id
  distribution_id="$(aws cloudfront list-distributions --query 'DistributionList.Items[0].Id' --output text)"
  aws cloudfront create-invalidation --distribution-id "$distribution_id" --paths '/*'
}

notify() {
  curl -fsS -X POST -H "Authorization: Bearer $DEPLOY_TOKEN" \
    -H 'Content-Type: application/json' \
    -d "{\"text\": \"deployed $(git rev-parse --short HEAD)\"}" \
    https://chat.example.com/api/notify
}

read_password() {
  local password
  read -rsp "password for the signing key: " password
  echo
  export SIGNING_KEY_PASSWORD="$password"
}

main() {
  check_token
  build
  upload
  invalidate
  notify
  log "done"
}

for key in build upload invalidate; do
  log "step available: $key"
done

if [ "${1:-}" = "--sign" ]; then
  read_password
fi

main "$@"
ssh-keygen -t ed25519 -f ~/.ssh/deploy_key -N "" -C "deploy@ci"
gpg --list-secret-keys --keyid-format=long
export API_KEY_FILE="$ROOT/.secrets/api_key"
export TOKEN_URL="https://auth.example.com/token"
echo "Use \$API_KEY from the environment; see docs/secrets.md"
ssh -p 2222 deploy@web1 'systemctl restart app'
scp -P 2222 build.tar.gz deploy@web1:/srv/
docker run -p 8080:80 -p 127.0.0.1:9090:9090 nginx:1.27
docker login -u ci-bot --password-stdin registry.example.com < /run/secrets/registry
redis-cli -h cache.internal -p 6379 ping
redis-cli -a "$REDIS_PASSWORD" --no-auth-warning info
sshpass -f ~/.config/deploy/pw ssh -p 2222 deploy@web1 uptime
sshpass -e ssh -p 22 deploy@web1
htpasswd -c /etc/nginx/.htpasswd alice
rsync -e 'ssh -p 2222' -a dist/ web1:/srv/
