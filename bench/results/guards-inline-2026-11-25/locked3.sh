#!/bin/bash
cd /work/scratch/guards/ab
echo "locked $(date -u +%T)"; vmstat 1 5
TAG=r5 BUDGET=300 python3 ab2.py 10 ring1 ring2
vmstat 1 5; echo "end $(date -u +%T)"
