#!/usr/bin/env bash
# Interop tests against the Debian-packaged clients (kcat, python3-confluent-kafka, python3-kafka,
# Sarama built with golang-go from golang-github-shopify-sarama-dev, Burrow with ZooKeeper beside it).
set -euo pipefail
cd "$(dirname "$0")/../.."
install="apt-get install -y kcat librdkafka-dev python3-confluent-kafka python3-kafka golang-go golang-github-shopify-sarama-dev burrow zookeeper"
for tool in kcat /usr/bin/python3 go Burrow java; do
  command -v "$tool" >/dev/null || { echo "missing $tool: $install" >&2; exit 1; }
done
/usr/bin/python3 -c 'import confluent_kafka, kafka' || { echo "missing python3-confluent-kafka or python3-kafka: $install" >&2; exit 1; }
[ -d /usr/share/gocode/src/github.com/Shopify/sarama ] || { echo "missing golang-github-shopify-sarama-dev: $install" >&2; exit 1; }
[ -f /usr/share/java/zookeeper.jar ] || { echo "missing zookeeper: $install" >&2; exit 1; }
exec node --import tsx --test --test-concurrency=1 test/interop/*.test.ts
