#!/usr/bin/env bash
# Interop tests against the Debian-packaged clients (kcat, python3-confluent-kafka, python3-kafka).
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in kcat /usr/bin/python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install -y kcat librdkafka-dev python3-confluent-kafka python3-kafka" >&2; exit 1; }
done
/usr/bin/python3 -c 'import confluent_kafka, kafka' || { echo "missing python3-confluent-kafka or python3-kafka" >&2; exit 1; }
exec node --import tsx --test --test-concurrency=1 test/interop/*.test.ts
