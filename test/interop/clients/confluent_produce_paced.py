"""Idempotent produce with librdkafka, paced into many small Produce requests so that faults hit
many of them. Prints {"acked": n} as acknowledgements come, then every acknowledged
[partition, offset, value] and every delivery error."""
import sys
import time

from confluent_kafka import Producer

from deliveries import Deliveries
from lines import say

bootstrap, topic, partitions, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
producer = Producer({
    "bootstrap.servers": bootstrap,
    "enable.idempotence": True,
    "linger.ms": 1,
    "reconnect.backoff.ms": 10,
    "reconnect.backoff.max.ms": 50,
    "retry.backoff.ms": 20,
})
deliveries = Deliveries()


def poll(seconds):
    before = len(deliveries.acked)
    producer.poll(seconds)
    if len(deliveries.acked) != before:
        say({"acked": len(deliveries.acked)})


for i in range(count):
    producer.produce(topic, value=f"m{i}".encode(), partition=i % partitions, on_delivery=deliveries.report)
    if i % partitions == partitions - 1:
        poll(0)
        time.sleep(0.001)
# Not flush(): the test watches the count while the broker is killed and restarted.
deadline = time.monotonic() + 120
while len(producer) > 0 and time.monotonic() < deadline:
    poll(0.05)
say({"unflushed": len(producer), "errors": deliveries.errors, "acked": deliveries.acked})
