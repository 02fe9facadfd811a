"""For each error code given, a fresh kafka-python producer (client_id = the topic; retries=5, as
its default of 0 retries nothing) sends one message to partition 0 of <prefix>-e<code>, whose
first Produce the test's proxy answers with that error, then a next message to partition 1.
Prints one JSON object: per code, what each send was told (offset or error)."""
import json
import sys

from kafka import KafkaProducer

bootstrap, prefix, codes = sys.argv[1], sys.argv[2], sys.argv[3:]
results = {}
for code in codes:
    topic = f"{prefix}-e{code}"
    producer = KafkaProducer(bootstrap_servers=bootstrap, client_id=topic, acks="all", retries=5, retry_backoff_ms=20)
    results[code] = {}
    for partition, send in ((0, "first"), (1, "next")):
        try:
            results[code][send] = {"offset": producer.send(topic, value=b"x", partition=partition).get(timeout=15).offset}
        except Exception as e:  # the error is the observation
            results[code][send] = {"error": type(e).__name__}
    producer.close()
print(json.dumps(results))
