#!/bin/bash
# The cocked network's residual-blocks experiment as one run, for a machine with many cores
# and a GPU (cocked-experiments.md; cocked.md, Retrain, renders the same scenes one command
# at a time): render the training scenes, find the committed detector's boxes in them, and
# train three networks, each in cocked.md's two steps: A with two residual blocks, B with one
# (the committed recipe, the control: a rerun reads each held-out set a few dice otherwise),
# C with two and 6,000 more step-1 scenes. Each ends as $OUT/NAME/cocked.onnx and
# cocked.json; $OUT/logs.txt holds the training logs (written early by a watchdog too).
#
#   DEVICE=cuda W=16 OUT=/tmp/ck bash models/dice/cocked_blocks_experiment.sh
#
# Knobs: SCALE divides every scene count (SCALE=250 DEVICE=cpu W=1 EPOCHS1=1 EPOCHS2=1 is a
# dry run of about a minute), W the rendering processes, ROOT where the scenes go (the paths
# cocked.md's commands use under /tmp), PY the Python with this project and MuJoCo, WATCHDOG
# the seconds after which the logs are first written.
set -u
START=$(date +%s)
SCALE=${SCALE:-1}; DEVICE=${DEVICE:-cpu}; W=${W:-2}; E1=${EPOCHS1:-16}; E2=${EPOCHS2:-4}
OUTDIR=${OUT:-/tmp/cocked_blocks}; mkdir -p $OUTDIR
ROOT=${ROOT:-/tmp}
log() { echo "[$(( $(date +%s) - START ))s] $*"; }
export MUJOCO_GL=egl PYTHONUNBUFFERED=1
PY=${PY:-python3}
render() {  # folder count seed scenario
  mkdir -p "$(dirname $1)"
  $PY -c 'import sys; from referee.cli import main; sys.exit(main())' synth dice --out $1 \
    --count $(( $2 / SCALE )) --seed $3 --scenario $4 --workers $W > $1.log 2>&1 || { log "render $1 failed"; tail -n 5 $1.log; }
}
boxes() {  # the committed detector's boxes, one process a folder (train_cocked caches them)
  local pids=()
  for d in "$@"; do
    [ -d $d ] || continue
    $PY -c "import sys; from pathlib import Path; from models.dice.train_cocked import scenes_and_boxes; scenes_and_boxes([Path(sys.argv[1])])" $d &
    pids+=($!)
  done; wait "${pids[@]}"  # not the trainings running beside
}
S1="--synthetic $ROOT/s5/lean30000 --synthetic $ROOT/s5/lean33000 --synthetic $ROOT/s5/stall31000 --synthetic $ROOT/s5/stall35000 --synthetic $ROOT/s5/mix32000 --synthetic $ROOT/s5/mix34000"
S1X="$S1 --synthetic $ROOT/s6/mix40000 --synthetic $ROOT/s6/lean41000 --synthetic $ROOT/s6/stall42000"
S2="--synthetic $ROOT/synth_dice_train --synthetic $ROOT/synth_dice_lean --synthetic $ROOT/synth_dice_lean2 --synthetic $ROOT/synth_dice_more --synthetic $ROOT/synth_dice_mix7000 --synthetic $ROOT/synth_dice_stall"
COMMON="--validate $ROOT/synth_dice_val888 --variants 2 --detector-boxes --slope --batch 128 --device $DEVICE --workers 4 --threads 2"
train() {  # name blocks step-1 sets...; step 2 waits for its scenes
  local name=$1 blocks=$2; shift 2
  mkdir -p $OUTDIR/$name $ROOT/ck_$name
  $PY -m models.dice.train_cocked "$@" $COMMON --blocks $blocks --lr 2e-3 --seed 7 --epochs $E1 --out $ROOT/ck_$name/step1 > $ROOT/ck_$name/step1.log 2>&1 || return
  log "run $name step 1 ended"
  while [ ! -e $ROOT/s2.ready ]; do sleep 2; done
  $PY -m models.dice.train_cocked $S2 $COMMON --blocks $blocks --lr 5e-4 --epochs $E2 --init $ROOT/ck_$name/step1/cocked.pt --out $ROOT/ck_$name/step2 > $ROOT/ck_$name/step2.log 2>&1 &&
  cp $ROOT/ck_$name/step2/cocked.onnx $ROOT/ck_$name/step2/cocked.json $OUTDIR/$name/
  log "run $name ended"
}
log "rendering"
render $ROOT/s5/lean30000 1000 30000 lean
log "first set done"; ls $ROOT/s5/lean30000/images | wc -l
render $ROOT/s5/lean33000 2000 33000 lean
render $ROOT/s5/stall31000 500 31000 stall
render $ROOT/s5/stall35000 1000 35000 stall
render $ROOT/s5/mix32000 1000 32000 mix
render $ROOT/s5/mix34000 3000 34000 mix
render $ROOT/synth_dice_val888 400 888000 mix
log "step-1 sets rendered"
boxes $ROOT/s5/* $ROOT/synth_dice_val888
log "step-1 boxes done"
collect() { for n in A B C; do for s in 1 2; do echo "== $n step $s"; cat $ROOT/ck_$n/step$s.log 2>/dev/null; done; done > $OUTDIR/logs.txt; }
( sleep ${WATCHDOG:-500}; log "watchdog: logs so far"; collect ) &
WD=$!
train A 2 $S1 &
PA=$!
train B 1 $S1 &
PB=$!
render $ROOT/synth_dice_train 2500 1000 mix
render $ROOT/synth_dice_lean 1000 3000 lean
render $ROOT/synth_dice_lean2 1500 4000 lean
render $ROOT/synth_dice_more 3000 5000 mix
render $ROOT/synth_dice_mix7000 3000 7000 mix
render $ROOT/synth_dice_stall 1500 10000 stall
log "step-2 sets rendered"
boxes $ROOT/synth_dice_train $ROOT/synth_dice_lean $ROOT/synth_dice_lean2 $ROOT/synth_dice_more $ROOT/synth_dice_mix7000 $ROOT/synth_dice_stall
touch $ROOT/s2.ready
log "step-2 boxes done"
render $ROOT/s6/mix40000 3000 40000 mix
render $ROOT/s6/lean41000 2000 41000 lean
render $ROOT/s6/stall42000 1000 42000 stall
boxes $ROOT/s6/*
log "extra sets done"
train C 2 $S1X &
PC=$!
wait $PA $PB $PC
kill $WD 2>/dev/null
log "all done"
collect
grep -h "epoch\|crops\|seconds\|Error\|error" $OUTDIR/logs.txt | tail -n 80
