# 棋钟 (qizhong). `make sim` runs the clock, `make test` runs every test.
# Both build .venv from the pinned requirements first: `make sim` only what the
# clock, the simulator and the host need (requirements.txt); `make test` also
# the tests' and the hardware files' (requirements/test.txt, hardware.txt) and
# the Debian packages the tests use (tools/debian_deps.sh).

PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
PIP     := $(BIN)/pip install --quiet --disable-pip-version-check
RUN     := $(VENV)/.run
STAMP   := $(VENV)/.installed
SPEC    ?= xq-rapid
BOARD   ?= oled
# Debian packages the tests need, as PACKAGE:PROGRAM, or PACKAGE:@FILE for one with
# no program (tools/debian_deps.sh): GNU Go (the Go oracle), chromium and its driver
# (the hall page's browser tests), mosquitto (the MQTT broker), Noto CJK (the pages'
# Chinese, Japanese and Korean names, docs/server.md), ngspice (the boards'
# electrical check, hardware/spice.py).
DEBIAN  := gnugo:gnugo chromium:chromium chromium-driver:chromedriver mosquitto:mosquitto \
           fonts-noto-cjk:@/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ngspice:ngspice

.PHONY: all sim hall hall-stop test lint typecheck bench mp clean voice firmware flash fuzz-props venv debian-deps

all: test

$(RUN): requirements.txt host/pyproject.toml
	$(PY) -m venv $(VENV)
	$(PIP) --no-compile -r requirements.txt
	$(PIP) --no-compile --no-deps --no-build-isolation -e host
	touch $@

$(STAMP): $(RUN) requirements/test.txt requirements/hardware.txt
	$(PIP) -r requirements/test.txt -r requirements/hardware.txt
	touch $@

venv: $(STAMP)

debian-deps:
	@sh tools/debian_deps.sh $(DEBIAN)

# The real firmware on the simulated board, in this terminal; VOICE=ja COUNT=down
# pick the voice (docs/voice.md), heard in out/sim-voice.wav; BOARD=battery the
# battery board's segment glasses (docs/power.md).
sim: $(RUN)
	$(BIN)/qizhong sim --spec "$(SPEC)" --board "$(BOARD)" $(if $(VOICE),--voice "$(VOICE)") $(if $(COUNT),--count "$(COUNT)")

# A server with a few simulated clocks (docs/server.md); it prints the page's address.
HALL_SIMS ?= 4
hall: $(RUN)
	$(BIN)/qizhong serve --sim $(HALL_SIMS) --db "$${TMPDIR:-/tmp}/qizhong-hall.sqlite"

# Its simulated clocks run on after it stops (as clocks on tables do): this stops them.
hall-stop: $(RUN)
	$(BIN)/qizhong serve --stop-sims --db "$${TMPDIR:-/tmp}/qizhong-hall.sqlite"

# Workers: 1.5 per core, as most tests wait on something in real time (a clock, a
# server, a browser), and a waiting worker leaves its core to another.
JOBS    ?= $(shell echo $$(( $$(nproc) * 3 / 2 )))

test: debian-deps lint
	$(BIN)/pytest -q -n $(JOBS) --dist loadfile --no-loadscope-reorder tests

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
mp: $(RUN)
	$(BIN)/micropython tests/mp/run_core.py
	$(BIN)/micropython tests/mp/heap_check.py
	$(BIN)/micropython tests/mp/proto_check.py

bench: $(STAMP) debian-deps
	$(BIN)/python benchmarks/run_all.py

# The property tests with fresh random examples, many more of them (not in make test).
fuzz-props: $(STAMP)
	QIZHONG_HYPOTHESIS=explore $(BIN)/pytest -q tests/test_properties.py tests/test_xiangqi.py

# The voice cues of every language (committed): needs Debian's espeak-ng and sox
# (installed here if missing, as tools/debian_deps.sh does), see firmware/assets/voice.
voice: $(RUN)
	@sh tools/debian_deps.sh espeak-ng:espeak-ng sox:sox
	$(BIN)/python tools/make_voice.py firmware/assets/voice

# The Pico's flash bundle (.mpy for the RP2040, main.py, voice) in build/firmware,
# and its upload with mpremote: make flash PORT=/dev/ttyACM0.
firmware: $(RUN)
	$(BIN)/python tools/build_firmware.py --out build/firmware

flash: $(RUN)
	@test -n "$(PORT)" || { echo "usage: make flash PORT=/dev/ttyACM0 (the clock in service mode: menu and ok held at power-on)"; exit 2; }
	$(BIN)/python tools/build_firmware.py --out build/firmware --port "$(PORT)"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
