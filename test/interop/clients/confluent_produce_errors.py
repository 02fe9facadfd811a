"""For each error code given, a fresh idempotent librdkafka producer (client.id = the topic) sends
one message to partition 0 of <prefix>-e<code>, whose first Produce the test's proxy answers with
that error, then a next message to partition 1. Prints one JSON object: per code, what each
send was told (offset or error) and any fatal error."""
import json
import sys

from confluent_kafka import KafkaException, Producer

bootstrap, prefix, codes = sys.argv[1], sys.argv[2], sys.argv[3:]
results = {}
for code in codes:
    topic = f"{prefix}-e{code}"
    result = {"fatal": None}

    def report(err, msg, result=result):
        told = {"offset": msg.offset()} if err is None else {"error": err.name()}
        result["first" if msg.partition() == 0 else "next"] = told

    def on_error(err, result=result):
        if err.fatal():
            result["fatal"] = err.name()

    producer = Producer({
        "bootstrap.servers": bootstrap,
        "client.id": topic,
        "enable.idempotence": True,
        "message.timeout.ms": 10000,
        "retry.backoff.ms": 20,
        "error_cb": on_error,
    })
    for partition in (0, 1):
        try:
            producer.produce(topic, value=b"x", partition=partition, on_delivery=report)
        except KafkaException as e:  # refused at once: the producer has failed for good
            result["next"] = {"error": e.args[0].name()}
            continue
        try:
            producer.flush(15)
        except KafkaException as e:  # flush raises a fatal error; the delivery report comes after
            result["fatal"] = e.args[0].name()
            producer.poll(1)
    results[code] = result
print(json.dumps(results))
