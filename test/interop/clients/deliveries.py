"""librdkafka delivery reports, collected: where each message was acknowledged, and what failed."""


class Deliveries:
    def __init__(self):
        self.acked, self.errors = [], []

    def report(self, err, msg):
        if err is not None:
            self.errors.append(str(err))
        else:
            self.acked.append([msg.partition(), msg.offset(), msg.value().decode()])
