package_name = 'onnxruntime'
__version__ = '1.22.0'
