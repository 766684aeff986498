package_name = 'onnxruntime-gpu'
__version__ = '1.22.0'
cuda_version = '12.2'
