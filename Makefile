# 棋钟 (qizhong). `make sim` runs the clock, `make test` runs every test.
# Both build .venv from the pinned requirements first.

PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
SPEC    ?= xq-rapid

.PHONY: all sim hall debs test lint typecheck bench mp clean voice firmware flash fuzz-props

all: test

$(STAMP): requirements.txt host/pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e host
	touch $@

venv: $(STAMP)

# The real firmware on the simulated board, in this terminal.
sim: $(STAMP)
	$(BIN)/qizhong sim --spec "$(SPEC)"

# A server with a few simulated clocks (docs/server.md); it prints the page's address.
HALL_SIMS ?= 4
hall: $(STAMP)
	$(BIN)/qizhong serve --sim $(HALL_SIMS) --db "$${TMPDIR:-/tmp}/qizhong-hall.sqlite"

# Debian packages the tests need, installed when missing (as root, as CI and
# the developers' machines are): GNU Go (the Go oracle), chromium and its
# driver (the hall page's browser tests), mosquitto (the MQTT broker).
DEBS := /usr/games/gnugo:gnugo /usr/bin/chromium:chromium \
  /usr/bin/chromedriver:chromium-driver /usr/sbin/mosquitto:mosquitto
debs:
	@missing=""; for d in $(DEBS); do [ -x "$${d%%:*}" ] || missing="$$missing $${d##*:}"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -qq $$missing >/dev/null || \
	    { apt-get update -qq && apt-get install -y -qq $$missing >/dev/null; }; \
	fi

test: lint debs
	$(BIN)/pytest -q tests

lint: $(STAMP)
	$(BIN)/ruff check firmware host tests benchmarks tools jig hardware
	$(BIN)/ruff format --check firmware host tests benchmarks tools jig hardware
	$(MAKE) --no-print-directory typecheck

# The host against its own code; the firmware against the Pico stubs.
typecheck: $(STAMP)
	cd host && ../$(BIN)/mypy --config-file mypy.ini -p qizhong
	cd firmware && MYPYPATH=../$(VENV)/pico-stubs ../$(BIN)/mypy --config-file mypy.ini \
	  --custom-typeshed-dir "$$(../$(BIN)/python ../tools/pico_stubs.py ../$(VENV)/pico-stubs)" .

# The core scenarios and the allocation check on the MicroPython interpreter.
mp: $(STAMP)
	$(BIN)/micropython tests/mp/run_core.py
	$(BIN)/micropython tests/mp/heap_check.py
	$(BIN)/micropython tests/mp/proto_check.py

bench: $(STAMP) debs
	$(BIN)/python benchmarks/run_all.py

# The property tests with fresh random examples, many more of them (not in make test).
fuzz-props: $(STAMP)
	QIZHONG_HYPOTHESIS=explore $(BIN)/pytest -q tests/test_properties.py tests/test_xiangqi.py

# The Mandarin voice cues (committed): needs espeak-ng and sox, see firmware/assets/voice.
voice: $(STAMP)
	$(BIN)/python tools/make_voice.py firmware/assets/voice

# The Pico's flash bundle (.mpy for the RP2040, main.py, voice) in build/firmware,
# and its upload with mpremote: make flash PORT=/dev/ttyACM0.
firmware: $(STAMP)
	$(BIN)/python tools/build_firmware.py --out build/firmware

flash: $(STAMP)
	@test -n "$(PORT)" || { echo "usage: make flash PORT=/dev/ttyACM0"; exit 2; }
	$(BIN)/python tools/build_firmware.py --out build/firmware --port "$(PORT)"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
