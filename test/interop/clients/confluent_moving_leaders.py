"""An idempotent producer and a consumer group on librdkafka (confluent-kafka) over a cluster whose
leaders the test moves meanwhile. Creates the topic with replication factor 3, says so, and
produces values a few milliseconds apart until stdin closes; then reads until every acknowledged
value is read or a minute passes. Prints one JSON line last: what was acknowledged, what was read,
the errors each saw."""
import sys
import threading
import time

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from deliveries import Deliveries
from lines import say, stdin_closed

bootstrap, topic, group, partitions = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
stop_producing = stdin_closed()

admin = AdminClient({"bootstrap.servers": bootstrap})
admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=3)])[topic].result(30)
say({"created": topic})

read, errors, stop = [], [], threading.Event()


def consume():
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "auto.offset.reset": "earliest",
        "session.timeout.ms": 10000,
        "heartbeat.interval.ms": 500,
        "reconnect.backoff.max.ms": 500,
    })
    consumer.subscribe([topic])
    while not stop.is_set():
        msg = consumer.poll(0.1)
        if msg is None:
            continue
        if msg.error():
            errors.append(str(msg.error()))
            continue
        read.append([msg.partition(), msg.offset(), msg.value().decode()])
    consumer.close()


reader = threading.Thread(target=consume)
reader.start()
producer = Producer({
    "bootstrap.servers": bootstrap,
    "enable.idempotence": True,
    "linger.ms": 5,
    "reconnect.backoff.max.ms": 500,
})
deliveries = Deliveries()
i = 0
while not stop_producing.is_set():
    i += 1
    producer.produce(topic, value=f"r{i}".encode(), partition=i % partitions, on_delivery=deliveries.report)
    producer.poll(0.005)
unflushed = producer.flush(60)

deadline = time.monotonic() + 60
acked = {v for _, _, v in deliveries.acked}
while time.monotonic() < deadline and not acked <= {v for _, _, v in list(read)}:
    time.sleep(0.1)
stop.set()
reader.join()
say({"unflushed": unflushed, "produceErrors": deliveries.errors, "consumeErrors": errors, "acked": deliveries.acked, "read": read})
