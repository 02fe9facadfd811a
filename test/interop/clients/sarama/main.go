// Command sarama drives Sarama 1.22 (Debian's golang-github-shopify-sarama-dev) against a broker
// for the interop tests: each subcommand prints one JSON line, its result, and exits 0 unless it
// could not run at all.
package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/Shopify/sarama"
)

// deadline bounds every wait, so a broker that stops answering fails the test instead of hanging it.
const deadline = 60 * time.Second

func main() {
	if os.Getenv("SARAMA_LOG") != "" {
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.Lmicroseconds)
	}
	if len(os.Args) < 3 {
		fail(fmt.Errorf("usage: sarama produce|group-consume|read|admin|admin-after-acls|moving BOOTSTRAP ARGS..."))
	}
	// BOOTSTRAP may list several brokers, separated by commas.
	bootstrap, args := strings.Split(os.Args[2], ","), os.Args[3:]
	var result interface{}
	var err error
	switch os.Args[1] {
	case "produce": // TOPIC COUNT sync|async PREFIX
		result, err = produce(bootstrap, args[0], atoi(args[1]), args[2], args[3])
	case "group-consume": // GROUP TOPIC COUNT
		result, err = groupConsume(bootstrap, args[0], args[1], atoi(args[2]))
	case "read": // TOPIC [TIMESTAMP_MS]
		result, err = read(bootstrap, args[0], args[1:])
	case "admin": // TOPIC GROUP
		result, err = admin(bootstrap, args[0], args[1])
	case "moving": // TOPIC GROUP PARTITIONS
		result, err = moving(bootstrap, args[0], args[1], atoi(args[2]))
	case "admin-after-acls":
		result, err = adminAfterAcls(bootstrap)
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		fail(err)
	}
}

// config is what every subcommand shares: the newest protocol Sarama 1.22 knows.
func config() *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.ClientID = "sarama-interop"
	cfg.Version = sarama.V2_1_0_0
	return cfg
}

// idempotentConfig is config for an idempotent producer that waits for every acknowledgement.
func idempotentConfig() *sarama.Config {
	cfg := config()
	cfg.Producer.Idempotent = true
	cfg.Net.MaxOpenRequests = 1
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Return.Successes = true
	cfg.Producer.Timeout = deadline
	return cfg
}

// errText is an error as the JSON result shows it: null for none.
func errText(err error) *string {
	if err == nil {
		return nil
	}
	s := err.Error()
	return &s
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		fail(err)
	}
	return n
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
