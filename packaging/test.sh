#!/usr/bin/env bash
# Sets everything up on a fresh Debian 12 machine and runs the whole test suite, then the tests
# that train and decode again on the AVX2 fp32 numeric path (as on CPUs without AVX-512 or bf16),
# whatever this CPU has.
set -euo pipefail
cd "$(dirname "$0")/.."
./packaging/build.sh
ctest --test-dir build --output-on-failure --parallel 2 --timeout 900
echo "== again on the AVX2 path: ATEN_CPU_CAPABILITY=avx2 DNNL_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell"
ATEN_CPU_CAPABILITY=avx2 DNNL_MAX_CPU_ISA=AVX2 OPENBLAS_CORETYPE=Haswell \
  ctest --test-dir build --output-on-failure --parallel 2 --timeout 900 \
  -R '^(Training|EncoderPretraining|EncoderFile|Encoder\.|BatchNormRelu|VocabularyLogLikelihood|Decod|DecoderPass|Datasets|DataParallel|MatrixProduct|PackedMatrix|DecodingProducts|SmallBatchLinear|StepWeight|AdditiveAttention|LstmCell|VectorMath|cli_end_to_end)'
